/* SPDX-License-Identifier: MIT */
#pragma once
/*
 * Strings the sandboxed program controls (paths, argv, host names, output)
 * are shown, never obeyed. escape_*() returns a malloc'd copy safe to put
 * on a terminal:
 *   - C0 controls and DEL as \n \r \t \e \a \b \f \v or \xNN; backslash as \\
 *   - C1 controls (U+0080..U+009F) as \u0085 style
 *   - invalid UTF-8 bytes as \xNN
 *   - invisible and bidi format characters as \u{XXXX}: libunistring's
 *     general category Cf, default-ignorable code points and bidi
 *     controls (U+00AD, U+061C, U+200B..U+200F, U+202A..U+202E,
 *     U+2066..U+2069, U+206E, U+FEFF, U+1D173, tags U+E0000..U+E0FFF,
 *     variation selectors, Hangul fillers ...), and U+2028, U+2029
 *   - all other valid printable UTF-8 kept as is
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

char	*escape_str(const char *);
char	*escape_mem(const void *, size_t);
/* Same rules, but keeps '\t' (for output lines already split on '\n'). */
char	*escape_line(const void *, size_t);
/*
 * A program's output line (already split on '\n'), for the output pane:
 * escape_line()'s rules, but what a terminal would obey to move text
 * around is shown as a marker instead: a carriage return as ⟨CR⟩, a run
 * of backspaces as ⟨BS⟩ or ⟨BS×3⟩, every escape sequence whole as
 * ⟨ESC[2J⟩ (its bytes escaped inside), and the marker brackets themselves
 * (U+27E8, U+27E9) as \u{27e8} so that no marker can be printed. ascii:
 * <CR>, <BSx3>, <ESC[2J> for a terminal that is not UTF-8.
 */
char	*escape_output(const void *, size_t, bool ascii);
/* Decode one UTF-8 sequence of s[0..n): its length, or 0 when s[0] does
 * not start a valid one (overlong, surrogate, > U+10FFFF, cut short). */
size_t	escape_utf8(const unsigned char *s, size_t n, uint32_t *ret);
