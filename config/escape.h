#pragma once
/*
 * Strings the sandboxed program controls (paths, argv, host names, output)
 * are shown, never obeyed. escape_*() returns a malloc'd copy safe to put
 * on a terminal:
 *   - C0 controls and DEL as \n \r \t \e \a \b \f \v or \xNN; backslash as \\
 *   - C1 controls (U+0080..U+009F) as \u0085 style
 *   - invalid UTF-8 bytes as \xNN
 *   - invisible and bidi format characters (U+00AD, U+200B..U+200F,
 *     U+202A..U+202E, U+2060..U+2064, U+2066..U+2069, U+FEFF, U+061C,
 *     U+180E, U+FFF9..U+FFFB, tag characters U+E0000..U+E007F) as \u{XXXX}
 *   - all other valid printable UTF-8 kept as is
 */
#include <stddef.h>

char	*escape_str(const char *);
char	*escape_mem(const void *, size_t);
/* Same rules, but keeps '\t' (for output lines already split on '\n'). */
char	*escape_line(const void *, size_t);
