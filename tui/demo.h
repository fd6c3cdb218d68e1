#pragma once
/* ward demo [--auto] [--headless]: a pretend agent meets every surface
 * ward guards, in a fake world of its own; a scorecard at the end. */
int	demo_main(int argc, char **argv, const char *argv0);
