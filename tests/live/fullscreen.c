/* SPDX-License-Identifier: MIT */
/*
 * A small full-screen program for t-agent-pane: curses on the alternate
 * screen, shows its window size and the keys it read, keeps drawing (a
 * tick), and on a key raises a write request outside (in a child, so
 * that it goes on drawing while the request waits) or tries to take
 * over the terminal (a title, a fake ward request block).
 *
 * usage: fullscreen DIR   (w writes DIR/f; t the title and fake; q quits)
 */
#include <curses.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char typed[64];
static unsigned ticks;
static const char *note = "";
static int faked;	/* the fake request stays drawn once made */

static void
draw(void)
{
	int h, w;

	getmaxyx(stdscr, h, w);
	erase();
	mvprintw(0, 0, "FULLSCREEN size %dx%d", h, w);
	mvprintw(1, 0, "typed: %s", typed);
	mvprintw(2, 0, "tick %u", ticks);
	mvprintw(3, 0, "note: %s", note);
	if (faked) {
		mvprintw(5, 0, "== pending: 1, oldest first ======================");
		mvprintw(6, 0, "> #9  write  openat   FAKE-REQUEST  denied in 1:59");
		mvprintw(7, 0, " a allow once  d deny  Enter whole request");
	}
	mvprintw(h - 1, 0, "BOTTOM-RIGHT-CORNER-FILLER");
	refresh();
}

static void
fake(void)
{
	/* The program's attempt at looking like ward: a title, a bell, a
	 * request block and a key line, drawn where it can. */
	fputs("\033]0;PWNED-TITLE\007\007", stdout);
	fflush(stdout);
	/* Drawn on every frame from now on (each tick erases and draws
	 * again): a test polling the screen cannot miss it. */
	faked = 1;
	draw();
}

int
main(int argc, char **argv)
{
	char path[4096];

	if (argc < 2)
		return 2;
	snprintf(path, sizeof path, "%s/f", argv[1]);
	initscr();
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	timeout(200);
	draw();
	for (;;) {
		int c = getch();

		while (waitpid(-1, NULL, WNOHANG) > 0)
			note = "write finished";
		if (c == ERR) {
			ticks++;
			draw();
			continue;
		}
		if (c == 'q')
			break;
		if (c == KEY_RESIZE) {
			/* A new size: paint it all again (as full-screen
			 * programs do), not only what changed since the
			 * last frame, which a terminal that joined after
			 * it never saw. */
			clear();
			draw();
			continue;
		}
		if (c == 'w') {
			pid_t pid = fork();

			if (pid == 0) {
				int fd = open(path, O_WRONLY | O_CREAT |
				    O_TRUNC, 0644);

				if (fd >= 0 && write(fd, "x\n", 2) == 2)
					_exit(0);
				_exit(1);
			}
			note = "write started";
		} else if (c == 't') {
			note = "faked";
			draw();
			fake();
			continue;
		} else if (c > ' ' && c < 0x7f && strlen(typed) + 1 <
		    sizeof typed) {
			typed[strlen(typed)] = (char)c;
		} else if (c == KEY_UP) {
			strncat(typed, "<up>", sizeof typed - strlen(typed) - 1);
		} else if (c == 0x1d) {
			strncat(typed, "<prefix>", sizeof typed - strlen(typed) - 1);
		}
		draw();
	}
	endwin();
	return 0;
}
