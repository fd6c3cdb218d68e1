/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * `ward run --pass-through`: the program has the person's terminal. ward
 * draws nothing: it attaches to the run's supervisor as a watching client,
 * writes the program's pty output to stdout byte for byte, sends the
 * terminal's keys (stdin in raw mode, so ^C and ^Z are the program's) and
 * its size (at start and on SIGWINCH) to the program's pty. Requests are
 * answered elsewhere: `ward console --lines RUN`, `ward approve RUN ID`,
 * or the tmux split `ward run --split` opens; a new one sends a desktop
 * notification where there is a desktop (never a bell or a byte on the
 * program's terminal).
 *
 * Returns the run's exit status when it ended (as `ward run` does), 125
 * when ward could not attach, 128+N after a signal that ended ward (the
 * run goes on, and `ward console RUN` attaches to it).
 */

/* run: the run's id. Says one line on stderr before the program draws. */
int	passthru_run(const char *run);
