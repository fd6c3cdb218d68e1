# SPDX-License-Identifier: MIT
# tests/bench/peers.sh -- other sandboxes beside native, bwrap and ward
# (issue 35). Sourced by tests/bench/run.sh when PEERS=1, after the
# temporary folder, W and the tmpfs folder (TFS) exist; it uses run.sh's
# say, apt_install, want, cmd_for and sb_env.
#
# For the workloads true, files_tmpfs and python, each peer that installs
# and runs the workload gets rows of its own:
#   srt       Anthropic's sandbox-runtime (npm PEER_SRT_NPM, CLI srt; on
#             Linux bubblewrap, socat and ripgrep), `srt --settings S --
#             CMD` with a settings file that allows writes to the
#             workload's folder (python: W and /tmp, the host's, where its
#             tests make their temporary files) and no network domain;
#             its seccomp filter refuses AF_UNIX sockets too, so
#             test_pathlib's test_is_socket_true errs under it
#   codex     Codex's sandbox (npm PEER_CODEX_NPM), `codex sandbox -P
#             :workspace -C DIR -- CMD`: the built-in workspace profile,
#             writes to DIR (the workload's folder) and /tmp, no network;
#             the native binary of the npm package, not its node launcher;
#             CODEX_HOME a folder of its own under build/bench/peers (no
#             login needed)
#   firejail  Debian's firejail, `firejail --quiet --noprofile
#             --read-only=/ --read-write=DIR --private-tmp --keep-var-tmp
#             --net=none CMD`: writes only to the workload's folder and a
#             private /tmp, no network (--keep-var-tmp: firejail otherwise
#             hides /var/tmp, where the workloads' programs are). As root
#             the workload runs as root inside; as an ordinary user
#             firejail (setuid root) refuses unless the user is listed in
#             /etc/firejail/firejail.users ("the user is not allowed to
#             use Firejail", Debian's 0.9.72): its check then leaves it out
# npm installs are cached in build/bench/peers (a second run is offline
# when the pinned versions are there). A peer that does not install, or
# does not run a workload (tried once before its timed rounds), is named
# in one `bench:` line and its rows are left out. The versions go to
# RESULTS/peers.txt, which summarize.py prints above the table.

PEER_SRT_NPM=${PEER_SRT_NPM:-@anthropic-ai/sandbox-runtime@0.0.83}
PEER_CODEX_NPM=${PEER_CODEX_NPM:-@openai/codex@0.171.0}
PEER_WORKLOADS="true files_tmpfs python"
PEER_DIR=$BUILD/peers
PEER_STATE=$TMPD/peers          # ok.WL.SB / bad.WL.SB: the check's verdict
PEERS_OK=
PEER_LINE=
mkdir -p "$PEER_DIR" "$PEER_STATE" || say "peers: cannot create $PEER_DIR"

# peer_npm NAME SPEC: SPEC (name@version) installed under PEER_DIR/NAME,
# from the cache when that version is there
peer_npm() {
	local dir=$PEER_DIR/$1 spec=$2 pkg ver have
	pkg=${spec%@*} ver=${spec##*@}
	have=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' \
		"$dir/node_modules/$pkg/package.json" 2>/dev/null)
	[ "$have" = "$ver" ] && return 0
	command -v npm >/dev/null || { say "peers: no npm: $1 left out"; return 1; }
	say "peers: installing $spec (npm, into $dir)"
	mkdir -p "$dir" &&
		timeout 300 npm install --no-audit --no-fund --prefix "$dir" "$spec" \
			>"$PEER_STATE/npm.$1.log" 2>&1 ||
		{ say "peers: npm install $spec failed ($(grep -m 1 . "$PEER_STATE/npm.$1.log")): $1 left out"; return 1; }
}

# peer_need PEER PROGRAM PACKAGE...: PROGRAM on the PATH, else apt
peer_need() {
	local p=$1 prog=$2; shift 2
	command -v "$prog" >/dev/null && return 0
	apt_install "$@" && command -v "$prog" >/dev/null && return 0
	say "peers: no $prog for $p: $p left out"
	return 1
}

SRT=
if peer_need srt bwrap bubblewrap && peer_need srt socat socat &&
	peer_need srt rg ripgrep && peer_npm srt "$PEER_SRT_NPM"; then
	SRT=$PEER_DIR/srt/node_modules/.bin/srt
	if [ -x "$SRT" ]; then
		PEERS_OK+=" srt"
		PEER_LINE+="srt $("$SRT" --version 2>/dev/null) ($PEER_SRT_NPM); "
	else
		say "peers: $SRT is missing after the install: srt left out"
	fi
	# One settings file per workload: writes to its folder, no network.
	for wl in $PEER_WORKLOADS; do
		case $wl in
		files_tmpfs) dirs="\"$TFS\"" ;;
		python) dirs="\"$W\", \"/tmp\"" ;;
		*) dirs="\"$W\"" ;;
		esac
		printf '{"network": {"allowedDomains": [], "deniedDomains": []},\n "filesystem": {"denyRead": [], "allowWrite": [%s], "denyWrite": []}}\n' \
			"$dirs" >"$PEER_STATE/srt.$wl.json"
	done
fi

CODEX=
if peer_need codex bwrap bubblewrap && peer_npm codex "$PEER_CODEX_NPM"; then
	# The package's native binary (its bin is a node launcher of it).
	CODEX=$(find "$PEER_DIR/codex/node_modules/@openai" -path '*/vendor/*/bin/codex' \
		-type f -perm -u+x 2>/dev/null | head -n 1)
	[ -n "$CODEX" ] || CODEX=$PEER_DIR/codex/node_modules/.bin/codex
	# Not below /tmp: codex refuses to put its helpers there.
	export CODEX_HOME=$PEER_DIR/codex/home
	if [ -x "$CODEX" ] && mkdir -p "$CODEX_HOME"; then
		PEERS_OK+=" codex"
		PEER_LINE+="$("$CODEX" --version 2>/dev/null) ($PEER_CODEX_NPM); "
	else
		say "peers: no codex binary after the install: codex left out"
	fi
fi

if peer_need firejail firejail firejail; then
	PEERS_OK+=" firejail"
	PEER_LINE+="$(firejail --version 2>/dev/null | sed -n '1s/ version / /p')$([ "$(id -u)" = 0 ] || echo ' (not root: setuid)'); "
fi
PEERS_OK=${PEERS_OK# }
[ -n "$PEER_LINE" ] && echo "${PEER_LINE%; }" >"$RES/peers.txt"
say "peers: ${PEERS_OK:-none installed}${PEER_LINE:+ -- ${PEER_LINE%; }}"

is_peer() { case " $PEERS_OK " in *" $1 "*) return 0 ;; esac; return 1; }

# peer_dir WORKLOAD: the folder the workload writes in
peer_dir() { if [ "$1" = files_tmpfs ]; then echo "$TFS"; else echo "$W"; fi; }

# peer_cmd WORKLOAD SANDBOX CMD: CMD (as for hyperfine -N) under the peer
peer_cmd() {
	local wl=$1 sb=$2 cmd=$3 d
	d=$(peer_dir "$wl")
	case $sb in
	srt) printf '%s --settings %s -- %s' "$SRT" "$PEER_STATE/srt.$wl.json" "$cmd" ;;
	codex) printf '%s sandbox -P :workspace -C %s -- %s' "$CODEX" "$d" "$cmd" ;;
	firejail) printf 'firejail --quiet --noprofile --read-only=/ --read-write=%s --private-tmp --keep-var-tmp --net=none %s' \
		"$d" "$cmd" ;;
	esac
}

# peer_check WORKLOAD SANDBOX: does the peer run the workload? Once per
# pair, before its timed rounds (python: its interpreter, not the tests,
# whose failures are a result). The verdict is kept in PEER_STATE, since
# sandboxes() runs in a subshell.
peer_check() {
	local wl=$1 sb=$2 cmd st=0 out=$PEER_STATE/check.$1.$2
	[ -e "$PEER_STATE/ok.$wl.$sb" ] && return 0
	[ -e "$PEER_STATE/bad.$wl.$sb" ] && return 1
	if [ "$wl" = python ]; then
		cmd=$(peer_cmd "$wl" "$sb" "$PY -c 'import test.libregrtest'")
	else
		cmd=$(cmd_for "$wl" "$sb")
	fi
	(cd "$W" && sb_env "$sb" && eval "timeout 300 $cmd") >"$out" 2>&1 || st=$?
	if [ "$st" = 0 ]; then
		: >"$PEER_STATE/ok.$wl.$sb"
		return 0
	fi
	say "peers: $sb cannot run $wl (exit $st: $(grep . "$out" | tail -n 1)): its rows are left out"
	: >"$PEER_STATE/bad.$wl.$sb"
	return 1
}

# peer_sandboxes WORKLOAD: the peers that run it
peer_sandboxes() {
	local sb
	case " $PEER_WORKLOADS " in *" ${1:-none} "*) ;; *) return 0 ;; esac
	for sb in $PEERS_OK; do
		peer_check "$1" "$sb" && echo "$sb"
	done
}
