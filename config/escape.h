#pragma once
/*
 * Strings the sandboxed program controls (paths, argv, host names, output)
 * are shown, never obeyed. escape_*() returns a malloc'd copy safe to put
 * on a terminal:
 *   - C0 controls and DEL as \n \r \t \e \a \b \f \v or \xNN; backslash as \\
 *   - C1 controls (U+0080..U+009F) as \u0085 style
 *   - invalid UTF-8 bytes as \xNN
 *   - invisible and bidi format characters (U+00AD, U+034F, U+061C,
 *     U+115F, U+1160, U+180E, U+200B..U+200F, U+2028..U+202E,
 *     U+2060..U+2064, U+2066..U+2069, U+3164, U+FE00..U+FE0F, U+FEFF,
 *     U+FFA0, U+FFF9..U+FFFB, tags U+E0000..U+E007F, variation selectors
 *     U+E0100..U+E01EF) as \u{XXXX}
 *   - all other valid printable UTF-8 kept as is
 */
#include <stddef.h>
#include <stdint.h>

char	*escape_str(const char *);
char	*escape_mem(const void *, size_t);
/* Same rules, but keeps '\t' (for output lines already split on '\n'). */
char	*escape_line(const void *, size_t);
/* Decode one UTF-8 sequence of s[0..n): its length, or 0 when s[0] does
 * not start a valid one (overlong, surrogate, > U+10FFFF, cut short). */
size_t	escape_utf8(const unsigned char *s, size_t n, uint32_t *ret);
