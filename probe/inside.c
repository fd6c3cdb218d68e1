/* SPDX-License-Identifier: MIT */
/*
 * ward probe-inside NAME [ARG...]: the table of actions and the entry.
 * The hostile program is the ward binary itself, shown to the sandbox
 * with --in; its libraries live in /usr, which every sandbox sees.
 */
#include "probe/probe.h"

#include <stdio.h>
#include <string.h>

#include "config/util.h"
#include "probe/inside.h"

static const struct probe_in {
	const char	*name;
	int		 nargs;
	int		(*fn)(char **);
} probe_ins[] = {
	{ "home-secret", 1, probe_in_home_secret },
	{ "store-secret", 1, probe_in_store_secret },
	{ "env-secret", 0, probe_in_env_secret },
	{ "write-path", 1, probe_in_write_path },
	{ "write-symlink", 1, probe_in_write_symlink },
	{ "write-hardlink", 1, probe_in_write_hardlink },
	{ "write-rename", 1, probe_in_write_rename },
	{ "write-chmod", 1, probe_in_write_chmod },
	{ "write-truncate", 1, probe_in_write_truncate },
	{ "write-utimes", 1, probe_in_write_utimes },
	{ "write-mkdir", 1, probe_in_write_mkdir },
	{ "deny-reason-fd", 2, probe_in_deny_reason_fd },
	{ "path-race", 1, probe_in_race },
	{ "io-uring", 0, probe_in_io_uring },
	{ "tiocsti", 0, probe_in_tiocsti },
	{ "ptrace", 0, probe_in_ptrace },
	{ "kill-supervisor", 0, probe_in_kill },
	{ "mount", 0, probe_in_mount },
	{ "unshare", 0, probe_in_unshare },
	{ "open-by-handle", 0, probe_in_open_by_handle },
	{ "bpf", 0, probe_in_bpf },
	{ "int80", 1, probe_in_int80 },
	{ "memfd-exec", 0, probe_in_memfd_exec },
	{ "connect", 1, probe_in_connect },
	{ "outside-listener", 1, probe_in_outside_listener },
	{ "metadata", 0, probe_in_metadata },
	{ "dns-exfil", 1, probe_in_dns_exfil },
	{ "raw-socket", 0, probe_in_raw_socket },
	{ "udp", 1, probe_in_udp },
	{ "argv-race", 3, probe_in_exec_race },
	{ "fork-bomb", 0, probe_in_fork_bomb },
	{ "memory-hog", 0, probe_in_memory_hog },
	{ "wall-clock", 0, probe_in_wall_clock },
};

int
probe_inside_main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("ward probe-inside: used by `ward probe`; see "
		    "`ward probe --help`\n", stderr);
		return 2;
	}
	/* The argv-race's tools/pip, run by its #! line: NAME is the
	 * script's path. */
	if (strchr(argv[1], '/') != NULL) {
		const char *base = strrchr(argv[1], '/') + 1;

		if (strcmp(base, PROBE_RACE_SCRIPT) == 0)
			return probe_in_exec_raced(argc - 2, argv + 2);
	}
	for (size_t i = 0; i < ARRAY_SIZE(probe_ins); i++) {
		if (strcmp(probe_ins[i].name, argv[1]) != 0)
			continue;
		if (argc - 2 < probe_ins[i].nargs) {
			fprintf(stderr, "ward probe-inside %s: %d argument(s) "
			    "needed\n", probe_ins[i].name, probe_ins[i].nargs);
			return 2;
		}
		probe_in_name = probe_ins[i].name;
		return probe_ins[i].fn(argv + 2);
	}
	fputs("ward probe-inside: no such probe\n", stderr);
	return 2;
}
