# SPDX-License-Identifier: MIT
"""Scripted model APIs of the live tests' world (net-tls.py serves them
at /v1/messages and /v1/responses; t-net-agents-e2e.sh drives the real
Claude Code and Codex with them).

No model here: the answer is a fixed script, and the step is read from
the request itself (how many tool results the conversation already has),
so a retried or repeated request gets the same answer and nothing is
kept between requests. The script's commands come from the test, in
DIR/ctl/model-script.json: {"steps": ["CMD", ...], "done": "TEXT"}
(each step one shell command the agent is told to run; then the text).
A request without tools (a title, a quota check) gets a short text.

    /v1/messages   Anthropic Messages: stream=true as SSE
                   (message_start, content_block_start/delta with
                   input_json_delta, message_delta, message_stop), else
                   one JSON message; the tool is "Bash"
    /v1/responses  OpenAI Responses as SSE (response.created,
                   response.output_item.done with a function_call,
                   response.completed); the tool is whichever shell tool
                   the request offers (shell, shell_command, exec_command);
                   also at .../codex/responses (Codex signed in with
                   ChatGPT: chatgpt_base_url's), with
                   .../wham/accounts/check, its account's backend
    /v1internal:METHOD  Gemini Code Assist (Gemini CLI signed in with
                   Google): loadCodeAssist (a tier and project),
                   streamGenerateContent as SSE ({"response": a
                   generateContent answer}: a functionCall of
                   run_shell_command, then the text), generateContent,
                   countTokens; other methods {}
"""
import json
import os


def load_script(directory):
    try:
        with open(os.path.join(directory, "ctl", "model-script.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {"steps": [], "done": "no script"}


def sse(events):
    out = []
    for name, data in events:
        out.append("event: %s\ndata: %s\n\n" % (name, json.dumps(data)))
    return "".join(out).encode()


# --- Anthropic ---------------------------------------------------------

def anthropic_step(req):
    n = 0
    for m in req.get("messages", []):
        c = m.get("content")
        if isinstance(c, list):
            n += sum(1 for b in c if isinstance(b, dict)
                     and b.get("type") == "tool_result")
    return n


def anthropic(directory, req):
    """(content type, body) of the answer to a /v1/messages request."""
    script = load_script(directory)
    names = [t.get("name") for t in req.get("tools", []) or []]
    step = anthropic_step(req)
    model = req.get("model", "claude-test")
    mid = "msg_ward_%d" % step
    if "Bash" in names and step < len(script["steps"]):
        tool = {"type": "tool_use", "id": "toolu_ward_%d" % step,
                "name": "Bash",
                "input": {"command": script["steps"][step],
                          "description": "step %d of the test's script"
                          % (step + 1)}}
        stop = "tool_use"
    else:
        tool = None
        stop = "end_turn"
    text = script.get("done", "done") if "Bash" in names else "ok"
    usage = {"input_tokens": 10, "output_tokens": 5,
             "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    if not req.get("stream"):
        content = [tool] if tool else [{"type": "text", "text": text}]
        return "application/json", json.dumps({
            "id": mid, "type": "message", "role": "assistant",
            "model": model, "content": content, "stop_reason": stop,
            "stop_sequence": None, "usage": usage}).encode()
    ev = [("message_start", {"type": "message_start", "message": {
        "id": mid, "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": usage}})]
    if tool:
        args = json.dumps(tool["input"])
        ev.append(("content_block_start", {
            "type": "content_block_start", "index": 0,
            "content_block": {"type": "tool_use", "id": tool["id"],
                              "name": "Bash", "input": {}}}))
        # the arguments in two pieces, as a model streams them
        half = len(args) // 2
        for part in (args[:half], args[half:]):
            ev.append(("content_block_delta", {
                "type": "content_block_delta", "index": 0,
                "delta": {"type": "input_json_delta",
                          "partial_json": part}}))
    else:
        ev.append(("content_block_start", {
            "type": "content_block_start", "index": 0,
            "content_block": {"type": "text", "text": ""}}))
        ev.append(("content_block_delta", {
            "type": "content_block_delta", "index": 0,
            "delta": {"type": "text_delta", "text": text}}))
    ev.append(("content_block_stop",
               {"type": "content_block_stop", "index": 0}))
    ev.append(("message_delta", {
        "type": "message_delta",
        "delta": {"stop_reason": stop, "stop_sequence": None},
        "usage": {"output_tokens": 5}}))
    ev.append(("message_stop", {"type": "message_stop"}))
    return "text/event-stream", sse(ev)


# --- OpenAI Responses --------------------------------------------------

def responses_step(req):
    items = req.get("input", [])
    if not isinstance(items, list):
        return 0
    return sum(1 for i in items if isinstance(i, dict)
               and i.get("type") in ("function_call_output",
                                     "custom_tool_call_output"))


def shell_call(names, cmd):
    """(tool name, arguments) for the shell tool the request offers."""
    if "shell_command" in names:
        return "shell_command", {"command": cmd}
    if "exec_command" in names:
        return "exec_command", {"cmd": cmd}
    return "shell", {"command": ["bash", "-lc", cmd]}


def responses(directory, req):
    script = load_script(directory)
    names = []
    for t in req.get("tools", []) or []:
        names.append(t.get("name") or (t.get("function") or {}).get("name"))
    step = responses_step(req)
    rid = "resp_ward_%d" % step
    ev = [("response.created", {"type": "response.created",
                                "response": {"id": rid}})]
    if names and step < len(script["steps"]):
        name, args = shell_call(names, script["steps"][step])
        item = {"type": "function_call", "id": "fc_ward_%d" % step,
                "call_id": "call_ward_%d" % step, "name": name,
                "arguments": json.dumps(args), "status": "completed"}
    else:
        text = script.get("done", "done") if names else "ok"
        item = {"type": "message", "id": "msg_ward_%d" % step,
                "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": text,
                             "annotations": []}]}
        ev.append(("response.output_item.added", {
            "type": "response.output_item.added", "output_index": 0,
            "item": dict(item, status="in_progress",
                         content=[])}))
        ev.append(("response.output_text.delta", {
            "type": "response.output_text.delta", "item_id": item["id"],
            "output_index": 0, "content_index": 0, "delta": text}))
    ev.append(("response.output_item.done", {
        "type": "response.output_item.done", "output_index": 0,
        "item": item}))
    ev.append(("response.completed", {
        "type": "response.completed", "response": {
            "id": rid, "output": [item], "usage": {
                "input_tokens": 10, "input_tokens_details":
                {"cached_tokens": 0}, "output_tokens": 5,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": 15}}}))
    return "text/event-stream", sse(ev)


# --- Gemini Code Assist (Gemini CLI signed in with Google) -------------

def gemini_step(req):
    n = 0
    for c in (req.get("request") or {}).get("contents", []) or []:
        for part in c.get("parts", []) or []:
            if isinstance(part, dict) and "functionResponse" in part:
                n += 1
    return n


def fill(schema):
    """A value of a JSON schema's shape (Gemini's OBJECT, STRING...)."""
    kind = str(schema.get("type", "object")).lower()
    if schema.get("enum"):
        return schema["enum"][0]
    if kind == "object":
        return {k: fill(v) for k, v in (schema.get("properties") or {}).items()}
    if kind == "array":
        return []
    if kind in ("number", "integer"):
        return 0
    if kind == "boolean":
        return False
    return "ward test"


def gemini(directory, method, req):
    """(content type, body) of a Code Assist method's answer."""
    if method == "loadCodeAssist":
        tier = {"id": "standard-tier", "name": "Gemini Code Assist (test)",
                "userDefinedCloudaicompanionProject": False}
        return "application/json", json.dumps({
            "currentTier": tier, "allowedTiers": [dict(tier, isDefault=True)],
            "cloudaicompanionProject": "ward-test-project"}).encode()
    if method == "onboardUser":
        return "application/json", json.dumps({"done": True, "response": {
            "cloudaicompanionProject": {"id": "ward-test-project"}}}).encode()
    if method == "countTokens":
        return "application/json", b'{"totalTokens": 10}'
    if method not in ("streamGenerateContent", "generateContent"):
        # listExperiments, retrieveUserQuota, ...: nothing
        return "application/json", b"{}"
    script = load_script(directory)
    gen = (req.get("request") or {}).get("generationConfig") or {}
    names = []
    for t in (req.get("request") or {}).get("tools", []) or []:
        for f in t.get("functionDeclarations", []) or []:
            names.append(f.get("name"))
    step = gemini_step(req)
    if "run_shell_command" in names and step < len(script["steps"]):
        part = {"functionCall": {"name": "run_shell_command", "args": {
            "command": script["steps"][step],
            "description": "step %d of the test's script" % (step + 1)}}}
    elif gen.get("responseMimeType") == "application/json":
        # its own questions (which model, who speaks next): an answer
        # of the schema's shape, each enum its first value
        part = {"text": json.dumps(fill(gen.get("responseJsonSchema") or
                                        gen.get("responseSchema") or {}))}
    else:
        part = {"text": script.get("done", "done") if names else "ok"}
    resp = {"response": {"candidates": [{
        "content": {"role": "model", "parts": [part]},
        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                          "totalTokenCount": 15},
        "modelVersion": "gemini-ward-test"}, "traceId": "ward-%d" % step}
    if method == "generateContent":
        return "application/json", json.dumps(resp).encode()
    return "text/event-stream", ("data: %s\n\n" % json.dumps(resp)).encode()


# Codex signed in with ChatGPT asks chatgpt_base_url's
# wham/accounts/check which backend its account uses before its first
# model call (none: the configured one), then posts to codex/responses.
ACCOUNTS = {"accounts": [{
    "id": "ward-test-account", "name": None, "plan_type": "plus",
    "structure": "personal", "profile_picture_url": None,
    "workspace_backend_origin": "NO_CONSTRAINT",
    "account_routing_override": "NO_CONSTRAINT"}],
    "account_ordering": ["ward-test-account"],
    "default_account_id": "ward-test-account"}


def answer(directory, path, body):
    """(content type, body) for a model API path, or None."""
    p = path.split("?")[0]
    if ":" in p and p.rsplit("/", 1)[-1].startswith("v1internal:"):
        try:
            req = json.loads(body.decode("utf-8") or "{}")
        except ValueError:
            req = {}
        return gemini(directory, p.rsplit(":", 1)[1], req)
    if p.endswith("/wham/accounts/check"):
        return "application/json", json.dumps(ACCOUNTS).encode()
    if p.endswith("/codex/responses"):
        p = "/v1/responses"
    if p.endswith("/models"):
        return "application/json", b'{"object":"list","data":[],"models":[]}'
    if p not in ("/v1/messages", "/v1/responses"):
        return None
    try:
        req = json.loads(body.decode("utf-8"))
    except ValueError:
        req = {}
    if p == "/v1/messages":
        return anthropic(directory, req)
    return responses(directory, req)
