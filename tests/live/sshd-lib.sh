# SPDX-License-Identifier: MIT
# A real sshd on 127.0.0.1 for the --host tests (t-relay, t-console-sshd);
# sourced after lib.sh. Its own host key (pinned in a known_hosts the test
# writes: StrictHostKeyChecking yes), user keys made by the test, each with
# a forced command in authorized_keys that runs `ward relay` and nothing
# else, on one or more ports. The ssh a test hands ward is a script
# ($SSHD_DIR/ssh, exported as WARD_SSH) that runs `ssh -F` with the test's
# own config; a host whose file $SSHD_DIR/HOST.down exists is unreachable
# (exit 255, as ssh's own failure), which lets a test hold a link down.
#
#   sshd_usable || ...               can sshd reach this user at all?
#   sshd_key NAME [VAR=VALUE ...]    a user key whose forced command is
#                                    `env VAR=VALUE ... ward relay`
#   sshd_start N                     sshd on N free ports: SSHD_PORTS[0..N-1]
#   sshd_alias ALIAS PORT KEY        `ssh ALIAS` reaches PORT with key KEY
#   sshd_check ALIAS                 ssh through ALIAS works (else 1, noted)
#   sshd_stop                        ends sshd
SSHD_DIR=$WT_SCRATCH/sshd
SSHD_PORTS=()
sshd_pid=

sshd_usable() {
	command -v /usr/sbin/sshd >/dev/null 2>&1 || { note "no /usr/sbin/sshd"; return 1; }
	command -v ssh >/dev/null 2>&1 || { note "no ssh client"; return 1; }
	command -v ssh-keygen >/dev/null 2>&1 || { note "no ssh-keygen"; return 1; }
	# sshd runs the command through the login shell: a user whose shell
	# is nologin (wardtest) cannot be reached by ssh at all.
	case $(getent passwd "$(id -un)" | cut -d: -f7) in
	*/nologin|*/false|'') note "the login shell of $(id -un) runs nothing"; return 1 ;;
	esac
	mkdir -p "$SSHD_DIR" && chmod 700 "$SSHD_DIR" || return 1
	: >"$SSHD_DIR/authorized_keys" && chmod 600 "$SSHD_DIR/authorized_keys"
	: >"$SSHD_DIR/ssh_config"
	printf '#!/bin/sh\n[ "$1" = -T ] && h=$2 || h=$1\n[ -e %q/"$h".down ] && exit 255\nexec ssh -F %q "$@"\n' \
	    "$SSHD_DIR" "$SSHD_DIR/ssh_config" >"$SSHD_DIR/ssh"
	chmod +x "$SSHD_DIR/ssh"
}

sshd_key() {	# sshd_key NAME [VAR=VALUE ...]
	local name=$1
	shift
	ssh-keygen -q -t ed25519 -N '' -f "$SSHD_DIR/$name" || return 1
	# sshd starts the session with an environment of its own: the
	# test's private runtime and state folders are named here (a
	# login's PAM session sets XDG_RUNTIME_DIR itself).
	printf 'command="env %s %s relay",no-pty,no-port-forwarding,no-agent-forwarding,no-X11-forwarding %s\n' \
	    "$*" "$WARD" "$(cat "$SSHD_DIR/$name.pub")" >>"$SSHD_DIR/authorized_keys"
}

sshd_start() {	# sshd_start N
	local port
	ssh-keygen -q -t ed25519 -N '' -f "$SSHD_DIR/host_key" || return 1
	# N free ports at once (each socket held until all are chosen).
	mapfile -t SSHD_PORTS < <(python3 - "$1" <<'PY'
import socket, sys
ss = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in ss:
    s.bind(("127.0.0.1", 0))
for s in ss:
    print(s.getsockname()[1])
PY
)
	[ "${#SSHD_PORTS[@]}" -eq "$1" ] || return 1
	: >"$SSHD_DIR/known_hosts"
	{
		for port in "${SSHD_PORTS[@]}"; do
			printf 'ListenAddress 127.0.0.1:%s\n' "$port"
			printf '[127.0.0.1]:%s %s\n' "$port" \
			    "$(cut -d' ' -f1,2 "$SSHD_DIR/host_key.pub")" >>"$SSHD_DIR/known_hosts"
		done
		cat <<CFG
HostKey $SSHD_DIR/host_key
AuthorizedKeysFile $SSHD_DIR/authorized_keys
PidFile $SSHD_DIR/sshd.pid
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
StrictModes no
UsePAM no
PermitRootLogin prohibit-password
AllowUsers $(id -un)
CFG
	} >"$SSHD_DIR/sshd_config"
	mkdir -p /run/sshd 2>/dev/null || true
	/usr/sbin/sshd -D -e -f "$SSHD_DIR/sshd_config" 2>"$WT_ARTIFACTS/sshd.log" &
	sshd_pid=$!
	WT_BG_PIDS+=("$sshd_pid")
	export WARD_SSH=$SSHD_DIR/ssh
}

sshd_alias() {	# sshd_alias ALIAS PORT KEY
	cat >>"$SSHD_DIR/ssh_config" <<CFG
Host $1
	HostName 127.0.0.1
	Port $2
	User $(id -un)
	IdentityFile $SSHD_DIR/$3
	IdentitiesOnly yes
	UserKnownHostsFile $SSHD_DIR/known_hosts
	StrictHostKeyChecking yes
	BatchMode yes
CFG
}

sshd_check() {	# sshd_check ALIAS
	# Whatever is asked, the forced command runs the relay, which ends
	# on EOF with 0: that is the check that the whole path works.
	if ! wait_for 5 ssh -F "$SSHD_DIR/ssh_config" "$1" true </dev/null 2>"$WT_ARTIFACTS/ssh-check-$1.err"; then
		note "sshd started but ssh $1 failed: $(head -c 300 "$WT_ARTIFACTS/ssh-check-$1.err")"
		return 1
	fi
}

sshd_stop() {
	[ -n "$sshd_pid" ] || return 0
	kill "$sshd_pid" 2>/dev/null || true
	wait "$sshd_pid" 2>/dev/null || true
	sshd_pid=
}
