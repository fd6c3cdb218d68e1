# SPDX-License-Identifier: MIT
# ward — GNU make with pkg-config. See README.md.
.SUFFIXES:
PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec
DATADIR  ?= $(PREFIX)/share
MANDIR   ?= $(DATADIR)/man
SYSCONFDIR ?= /etc
BUILD    ?= build
CC       ?= cc
PKGS      = libseccomp inih sqlite3 ncursesw jansson libnotify libgit2 nettle vterm
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
# Each program links what it uses; libnotify is loaded at run time by
# approvals/desktop.c (dlopen), so its headers are needed, not its library.
# libunistring (no .pc in Debian): config/escape.c's Unicode properties.
LIB_LIBS   := $(shell pkg-config --libs inih sqlite3 jansson) -lunistring -lresolv -ldl
# libseccomp compiles the filter at build time (filter-gen); the
# supervisor carries the program and does not link it.
SECCOMP_LIBS := $(shell pkg-config --libs libseccomp)
SUP_LIBS   := $(LIB_LIBS)
# ward-gate (supervisor/gate/, issue 19): TLS and HTTP for intercepted
# hosts. Only it links OpenSSL and http-parser: ward-supervisor starts
# without them (issue 18).
GATE_LIBS  := $(shell pkg-config --libs openssl) -lhttp_parser $(SECCOMP_LIBS)
# libvterm (tui/vt.c): the agent pane's terminal emulator.
TUI_LIBS   := $(shell pkg-config --libs ncursesw vterm) $(LIB_LIBS)
# Shared libraries by default, as a distribution links them (their
# security updates reach ward that way). STATIC=1 links inih, sqlite3,
# jansson, libunistring, ncurses, libvterm and nettle from their static
# archives (Debian's -dev packages have them): a run then maps 4
# libraries fewer (0.25 MiB less memory per supervisor, 60 page faults
# less per `ward run`; `make bench` shows the start-up it saves). None of
# them ever sees what the sandboxed program controls: they read the
# policy, the record and the control sockets, all outside the sandbox.
# STATIC=auto links statically when every archive is there.
STATIC ?= 0
ifeq ($(STATIC),auto)
STATIC_ARCHIVES := libinih.a libsqlite3.a libjansson.a libunistring.a libncursesw.a libtinfo.a libvterm.a libnettle.a
override STATIC := $(if $(strip $(foreach a,$(STATIC_ARCHIVES),$(if $(filter /%,$(shell $(CC) -print-file-name=$(a))),,$(a)))),0,1)
endif
ifeq ($(STATIC),1)
STATIC_DEPS = -Wl,-Bdynamic -lresolv -ldl -lm -lpthread
LIB_LIBS   := -Wl,-Bstatic -linih -lsqlite3 -ljansson -lunistring $(STATIC_DEPS)
SUP_LIBS   := $(LIB_LIBS)
TUI_LIBS   := -Wl,-Bstatic -lncursesw -ltinfo -lvterm -linih -lsqlite3 -ljansson -lunistring $(STATIC_DEPS)
endif
# libgit2 (diffs, `ward apply --commit`) is loaded by approvals/gitapi.c
# when a review verb or the diff pane first needs it (dlopen): linked,
# its chain of shared libraries would cost every `ward run` 3 ms. Only
# its headers are needed here. nettle (SHA-256, approvals/changes.c) is
# small and linked in like the others with STATIC=1.
ifeq ($(STATIC),1)
DIFF_LIBS := -Wl,-Bstatic -lnettle -Wl,-Bdynamic
else
DIFF_LIBS := $(shell pkg-config --libs nettle)
endif
# The soname gitapi.c opens is the one of the libgit2 built against
# (libgit2.so.1.5 on Debian 12, .1.9 on 13), read from the ELF header of
# the development symlink: a hard-coded one lost the diff pane on a
# newer libgit2. It is read only when gitapi.o is built, and kept in a
# stamp that changes (rebuilding gitapi.o) only when the soname does.
libgit2_soname = $(or $(shell readelf -d \
	"$$(pkg-config --variable=libdir libgit2)/libgit2.so" 2>/dev/null | \
	sed -n 's/.*(SONAME).*\[\(.*\)\]$$/\1/p'),$(error libgit2's soname: \
	readelf -d finds none in libgit2.so (libgit2-dev and binutils?)))

# (the policy's hash too: config/policy.c, in every program)
LIB_LIBS  += $(DIFF_LIBS)
SUP_LIBS  += $(DIFF_LIBS)
TUI_LIBS  += $(DIFF_LIBS)
CMOCKA_LIBS := $(shell pkg-config --libs cmocka)

WARN = -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes \
       -Wmissing-prototypes -Wswitch-enum -Wvla \
       -Werror=implicit-function-declaration -Werror=return-type \
       -Werror=incompatible-pointer-types -Werror=format-security \
       -Wno-missing-field-initializers
# (Tables leave trailing fields to their zero, the C idiom for them, which
# clang's -Wextra flags and gcc's does not.)
ifeq ($(WERROR),1)
WARN += -Werror
endif
# CPPFLAGS, CFLAGS and LDFLAGS from the environment or the command line
# reach every compile and link (a distribution's hardening flags:
# dpkg-buildflags gives -D_FORTIFY_SOURCE=2 in CPPFLAGS).
CFLAGS ?= -O2 -g
ALL_CFLAGS = -std=gnu11 -D_GNU_SOURCE -I. $(WARN) $(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS) -MMD -MP
LDFLAGS += -Wl,--as-needed

LIB_SRC  = $(wildcard config/*.c approvals/*.c)
# review/: what a person reviews after a run (summary, scorecard, the
# record in plain words and as JSON), linked into ward-tui and the tests
# that include it, never into the supervisor.
REVIEW_SRC = $(wildcard review/*.c)
# supervisor/gate/wire.c, the gate's wire codec, is compiled into both.
SUP_SRC  = $(filter-out supervisor/filter-gen.c,$(wildcard supervisor/*.c)) \
	supervisor/gate/wire.c
TUI_SRC  = $(wildcard tui/*.c)
# `ward probe`: its own folder, linked into ward.
PROBE_SRC = $(wildcard probe/*.c)
TEST_SRC = $(wildcard tests/test-*.c)
# tui objects other than the two mains are linked into the tui tests too
TUI_LIBSRC = $(filter-out tui/main.c,$(TUI_SRC))
# supervisor/main.c is the run's main (supervisor_main), linked into the
# two programs whose mains call it: entry.c (ward-supervisor) and
# front.c (ward).
SUP_MAINS  = supervisor/main.c supervisor/entry.c supervisor/front.c
SUP_LIBSRC = $(filter-out $(SUP_MAINS),$(SUP_SRC))
GATE_SRC = $(wildcard supervisor/gate/*.c)
GATE_LIBSRC = $(filter-out supervisor/gate/main.c,$(GATE_SRC))

LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/%.o)
SUP_OBJ  = $(SUP_SRC:%.c=$(BUILD)/%.o)
TUI_OBJ  = $(TUI_SRC:%.c=$(BUILD)/%.o)
TESTS    = $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
HELPERS  = $(patsubst tests/live/%.c,$(BUILD)/tests/live/%,$(wildcard tests/live/*.c))

all: ward ward-tui ward-supervisor ward-gate

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# gitapi.o: libgit2's soname, above.
$(BUILD)/libgit2.soname: FORCE
	@mkdir -p $(dir $@)
	@echo '$(libgit2_soname)' | cmp -s - $@ || echo '$(libgit2_soname)' >$@
$(BUILD)/approvals/gitapi.o: $(BUILD)/libgit2.soname
$(BUILD)/approvals/gitapi.o: ALL_CFLAGS += \
	-DWARD_LIBGIT2_SONAME='"$(file <$(BUILD)/libgit2.soname)"'
# What debian/rules makes the package recommend.
print-libgit2-soname:
	@echo '$(libgit2_soname)'
FORCE:

$(BUILD)/libward.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libreview.a: $(REVIEW_SRC:%.c=$(BUILD)/%.o)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libtui.a: $(TUI_LIBSRC:%.c=$(BUILD)/%.o)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libsup.a: $(SUP_LIBSRC:%.c=$(BUILD)/%.o)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libgate.a: $(GATE_LIBSRC:%.c=$(BUILD)/%.o)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libprobe.a: $(PROBE_SRC:%.c=$(BUILD)/%.o)
	@rm -f $@
	ar rcs $@ $^

# The seccomp program, compiled from supervisor/filter.c's rules.
$(BUILD)/supervisor/filter-compile.o: supervisor/filter.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DWARD_FILTER_COMPILE -c -o $@ $<

$(BUILD)/filter-gen: $(BUILD)/supervisor/filter-gen.o $(BUILD)/supervisor/filter-compile.o $(BUILD)/libward.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(SECCOMP_LIBS) $(LIB_LIBS)

# One run writes both: the program the supervisor carries and the same
# rules as the OCI profile `ward oci profile` prints (tui/oci-profile.c).
$(BUILD)/gen/filter-bpf.h $(BUILD)/gen/oci-profile.h &: $(BUILD)/filter-gen
	@mkdir -p $(BUILD)/gen
	$(BUILD)/filter-gen $(BUILD)/gen/filter-bpf.h.tmp $(BUILD)/gen/oci-profile.h.tmp && \
	    mv $(BUILD)/gen/filter-bpf.h.tmp $(BUILD)/gen/filter-bpf.h && \
	    mv $(BUILD)/gen/oci-profile.h.tmp $(BUILD)/gen/oci-profile.h

# Where the installed programs look for each other and the shipped files.
$(BUILD)/config/paths.o: ALL_CFLAGS += -DWARD_INSTALL_PREFIX='"$(PREFIX)"' \
	-DWARD_LIBEXECDIR='"$(LIBEXECDIR)"' \
	-DWARD_SYSCONFDIR='"$(SYSCONFDIR)"'

$(BUILD)/supervisor/filter.o: $(BUILD)/gen/filter-bpf.h
$(BUILD)/supervisor/filter.o: ALL_CFLAGS += -I$(BUILD)/gen
$(BUILD)/tui/oci-profile.o: $(BUILD)/gen/oci-profile.h
$(BUILD)/tui/oci-profile.o: ALL_CFLAGS += -I$(BUILD)/gen

SUPERVISOR_OBJ = $(BUILD)/supervisor/entry.o $(BUILD)/supervisor/main.o

ward-supervisor: $(SUPERVISOR_OBJ) $(BUILD)/libsup.a $(BUILD)/libward.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(SUP_LIBS)

# ward is the front (supervisor/front.c): a headless run is supervised
# in its own process, with the supervisor's libraries and none of
# ward-tui's; everything else it execs ward-tui for.
FRONT_OBJ = $(BUILD)/supervisor/front.o $(BUILD)/supervisor/main.o

ward: $(FRONT_OBJ) $(BUILD)/libsup.a $(BUILD)/libward.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(SUP_LIBS)

ward-tui: $(BUILD)/tui/main.o $(BUILD)/libtui.a $(BUILD)/libprobe.a $(BUILD)/libreview.a $(BUILD)/libward.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(TUI_LIBS)

ward-gate: $(BUILD)/supervisor/gate/main.o $(BUILD)/libgate.a $(BUILD)/libward.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(GATE_LIBS) $(LIB_LIBS)

# tests/test-tui-*.c link the tui objects, tests/test-sup-*.c the
# supervisor's, tests/test-probe-*.c the probe's, a test that includes
# review/ libreview.a, every other test only libward.a (config +
# approvals).
REVIEW_TESTS = $(patsubst tests/%.c,$(BUILD)/tests/%,$(filter-out tests/test-tui-%,\
	$(shell grep -l '^\#include "review/' $(TEST_SRC))))
$(REVIEW_TESTS): %: %.o $(BUILD)/libreview.a $(BUILD)/libward.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIB_LIBS) $(CMOCKA_LIBS)

$(BUILD)/tests/test-probe-%: $(BUILD)/tests/test-probe-%.o $(BUILD)/libprobe.a $(BUILD)/libward.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIB_LIBS) $(CMOCKA_LIBS)

$(BUILD)/tests/test-gate-%: $(BUILD)/tests/test-gate-%.o $(BUILD)/libgate.a $(BUILD)/libward.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(GATE_LIBS) $(LIB_LIBS) $(CMOCKA_LIBS)

$(BUILD)/tests/test-tui-%: $(BUILD)/tests/test-tui-%.o $(BUILD)/libtui.a $(BUILD)/libreview.a $(BUILD)/libward.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(TUI_LIBS) $(CMOCKA_LIBS)

# make bench's console row (tests/bench/console.c): the tui objects, no
# cmocka.
$(BUILD)/tests/bench-console: $(BUILD)/tests/bench/console.o $(BUILD)/libtui.a $(BUILD)/libreview.a $(BUILD)/libward.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(TUI_LIBS)

# make bench's gate relay row (tests/bench/gate.c): the gate's objects.
$(BUILD)/tests/bench-gate: $(BUILD)/tests/bench/gate.o $(BUILD)/libgate.a $(BUILD)/libward.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(GATE_LIBS) $(LIB_LIBS) -lpthread

# The filter's test compiles the rules afresh and compares.
$(BUILD)/tests/test-sup-filter: $(BUILD)/tests/test-sup-filter.o $(BUILD)/supervisor/filter-compile.o $(BUILD)/libsup.a $(BUILD)/libward.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(SUP_LIBS) $(SECCOMP_LIBS) $(CMOCKA_LIBS)

# The OCI profile's test rebuilds the profile into libseccomp and compares
# the program with the carried one; it calls tui/oci-profile.c too.
$(BUILD)/tests/test-oci-profile.o: $(BUILD)/gen/oci-profile.h
$(BUILD)/tests/test-oci-profile.o: ALL_CFLAGS += -I$(BUILD)/gen
$(BUILD)/tests/test-oci-profile: $(BUILD)/tests/test-oci-profile.o $(BUILD)/supervisor/filter-compile.o $(BUILD)/libtui.a $(BUILD)/libreview.a $(BUILD)/libsup.a $(BUILD)/libward.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(TUI_LIBS) $(SECCOMP_LIBS) $(CMOCKA_LIBS)

$(BUILD)/tests/test-sup-%: $(BUILD)/tests/test-sup-%.o $(BUILD)/libsup.a $(BUILD)/libward.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(SUP_LIBS) $(CMOCKA_LIBS)

$(BUILD)/tests/test-%: $(BUILD)/tests/test-%.o $(BUILD)/libward.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LIB_LIBS) $(CMOCKA_LIBS)

$(BUILD)/tests/live/%: $(BUILD)/tests/live/%.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lpthread

# t-agent-pane's full-screen program: curses, linked whole so that it
# needs nothing of the host's libraries inside the sandbox but libc.
FULLSCREEN_LIBS := $(shell pkg-config --libs ncursesw)
ifeq ($(STATIC),1)
FULLSCREEN_LIBS := -Wl,-Bstatic -lncursesw -ltinfo -Wl,-Bdynamic
endif
$(BUILD)/tests/live/fullscreen: $(BUILD)/tests/live/fullscreen.o
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(FULLSCREEN_LIBS)

# test-gate-main runs $(BUILD)/bin/ward-gate.
tests: $(TESTS) $(HELPERS) $(BUILD)/tests/bench-console $(BUILD)/tests/bench-gate \
	$(BUILD)/bin/ward-gate

# Unit tests (cmocka), then the live tests that launch real sandboxes.
check: all tests layers docs-check
	@fail=0; for t in $(TESTS); do \
		echo "== $$t"; $$t || fail=1; \
	done; [ $$fail = 0 ]
	WARD_BUILD=$(BUILD) tests/live/run-all.sh

unit: all unit-only

# ASan+UBSan build in its own folder, unit tests only.
asan:
	$(MAKE) BUILD=build-asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" \
		LDFLAGS="-fsanitize=address,undefined" unit-only

# The programs linked into $(BUILD)/bin/ instead of the top folder: how
# asan-live builds sanitized ones without replacing ./ward.
$(BUILD)/bin/ward-supervisor: $(SUPERVISOR_OBJ) $(BUILD)/libsup.a $(BUILD)/libward.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(SUP_LIBS)

$(BUILD)/bin/ward-gate: $(BUILD)/supervisor/gate/main.o $(BUILD)/libgate.a $(BUILD)/libward.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(GATE_LIBS) $(LIB_LIBS)

$(BUILD)/bin/ward: $(FRONT_OBJ) $(BUILD)/libsup.a $(BUILD)/libward.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(SUP_LIBS)

$(BUILD)/bin/ward-tui: $(BUILD)/tui/main.o $(BUILD)/libtui.a $(BUILD)/libprobe.a $(BUILD)/libreview.a $(BUILD)/libward.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(TUI_LIBS)

# The live tests (all, or LIVE="t-approve t-kill") against ASan+UBSan
# builds of ward and ward-supervisor in build-asan/bin/. run-all.sh sends
# the sanitizers' reports to files and fails a test that left one; UBSan
# stops at its first finding.
ASAN_LIVE_CFLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
# The tests' own C helpers stay plain ($(BUILD)/tests/live): they run
# inside sandboxes, under the run's memory limit.
asan-live: $(HELPERS)
	$(MAKE) BUILD=build-asan CFLAGS="$(ASAN_LIVE_CFLAGS)" \
		LDFLAGS="-fsanitize=address,undefined" \
		build-asan/bin/ward build-asan/bin/ward-tui build-asan/bin/ward-supervisor \
		build-asan/bin/ward-gate
	WARD_BIN_DIR=build-asan/bin WARD_BUILD=$(BUILD) WARD_SANITIZE=1 \
		tests/live/run-all.sh $(LIVE)

# The unit tests alone: `make asan` must not leave sanitized ./ward and
# ./ward-supervisor behind (they would be what `make bench` then times).
unit-only: tests
	@fail=0; for t in $(TESTS); do $$t || fail=1; done; [ $$fail = 0 ]

# Includes flow config <- approvals <- {supervisor, probe, review <- tui}; curses
# only in tui, seccomp only in supervisor.
layers:
	@tests/layers.sh

# One source per fact: the policy keys, the commands and the README
# against the code (tests/docs-check.sh says what it compares).
docs-check:
	@tests/docs-check.sh

# libFuzzer harnesses (tests/fuzz/fuzz-*.c, see tests/fuzz/README): the
# project's sources compiled with clang, ASan+UBSan and coverage in their
# own folder, so the gcc build is untouched. Each harness links the
# libraries, not chosen objects, so a module split into files stays found.
# No -Werror there: clang's warnings are not gcc's, and CI's -Werror build
# is the gcc one.
FUZZ_BUILD   ?= build-fuzz
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SAN      = -fsanitize=address,undefined -fno-sanitize-recover=all \
		-fno-omit-frame-pointer
FUZZ_SRC      = $(wildcard tests/fuzz/fuzz-*.c)
FUZZERS       = $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/tests/fuzz/%)

# As for the tests: fuzz-tui-* link the tui objects, the others the
# supervisor's.
$(BUILD)/tests/fuzz/fuzz-tui-%: $(BUILD)/tests/fuzz/fuzz-tui-%.o $(BUILD)/libtui.a $(BUILD)/libreview.a $(BUILD)/libward.a
	$(CC) $(CFLAGS) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(TUI_LIBS)

$(BUILD)/tests/fuzz/fuzz-%: $(BUILD)/tests/fuzz/fuzz-%.o $(BUILD)/libsup.a $(BUILD)/libward.a
	$(CC) $(CFLAGS) $(LDFLAGS) -fsanitize=fuzzer -o $@ $^ $(SUP_LIBS)

fuzzers: $(FUZZERS)

fuzz:
	$(MAKE) BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) STATIC=0 WERROR=0 \
		CFLAGS="-O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link" \
		LDFLAGS="$(FUZZ_SAN)" fuzzers

# Each harness for FUZZ_SECONDS (0: its seed corpus once, no fuzzing);
# fails on any crash, leak, UB or broken property.
fuzz-check: fuzz
	tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

# `make bench PEERS=1` adds srt, codex and firejail beside native, bwrap
# and ward for true, files_tmpfs and python (tests/bench/peers.sh; make
# hands a variable set on its command line to run.sh's environment).
bench: all $(BUILD)/tests/bench-console $(BUILD)/tests/bench-gate
	tests/bench/run.sh

# ward (the front, which supervises a headless run itself) in BINDIR;
# ward-tui, ward-supervisor and ward-gate, which only ward's programs
# start, in LIBEXECDIR/ward; the shipped policy, demo and recipes in DATADIR/ward;
# completions where bash-completion, zsh and fish look.
# The demo's fake world runs its servers with python3 (not made
# executable: the package does not depend on python3, the demo says when
# it is missing).
DEMO_SH = $(wildcard share/demo/*.sh)
DEMO_PY = $(wildcard share/demo/*.py)
# Containers (ward oci): the systemd unit and the Kubernetes examples,
# shipped as examples to copy (nothing installs the unit).
OCI_SHARE = $(wildcard share/oci/*)
COMPLETIONS = $(BUILD)/completions/ward.bash $(BUILD)/completions/_ward \
	$(BUILD)/completions/ward.fish

$(BUILD)/completions/ward.bash: ward ward-tui
	@mkdir -p $(dir $@)
	./ward completion bash >$@.tmp && mv $@.tmp $@
$(BUILD)/completions/_ward: ward ward-tui
	@mkdir -p $(dir $@)
	./ward completion zsh >$@.tmp && mv $@.tmp $@
$(BUILD)/completions/ward.fish: ward ward-tui
	@mkdir -p $(dir $@)
	./ward completion fish >$@.tmp && mv $@.tmp $@

completions: $(COMPLETIONS)

install: all completions
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR)/ward \
		$(DESTDIR)$(DATADIR)/ward/demo $(DESTDIR)$(DATADIR)/ward/agents \
		$(DESTDIR)$(DATADIR)/ward/oci \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(MANDIR)/man7 \
		$(DESTDIR)$(DATADIR)/bash-completion/completions \
		$(DESTDIR)$(DATADIR)/zsh/vendor-completions \
		$(DESTDIR)$(DATADIR)/fish/vendor_completions.d
	install -m 755 ward $(DESTDIR)$(BINDIR)/
	install -m 755 ward-tui ward-supervisor ward-gate $(DESTDIR)$(LIBEXECDIR)/ward/
	install -m 644 share/ward.ini share/oci.ini $(DESTDIR)$(DATADIR)/ward/
	install -m 644 $(OCI_SHARE) $(DESTDIR)$(DATADIR)/ward/oci/
	install -m 644 share/demo/demo.ini $(DEMO_PY) $(DESTDIR)$(DATADIR)/ward/demo/
	install -m 755 $(DEMO_SH) $(DESTDIR)$(DATADIR)/ward/demo/
	install -m 644 share/agents/*.ini $(DESTDIR)$(DATADIR)/ward/agents/
	install -m 644 share/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 share/man/*.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 644 share/man/*.8 $(DESTDIR)$(MANDIR)/man8/
	install -m 644 share/man/*.7 $(DESTDIR)$(MANDIR)/man7/
	install -m 644 $(BUILD)/completions/ward.bash \
		$(DESTDIR)$(DATADIR)/bash-completion/completions/ward
	install -m 644 $(BUILD)/completions/_ward \
		$(DESTDIR)$(DATADIR)/zsh/vendor-completions/_ward
	install -m 644 $(BUILD)/completions/ward.fish \
		$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/ward.fish

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ward $(DESTDIR)$(LIBEXECDIR)/ward/ward-tui \
		$(DESTDIR)$(LIBEXECDIR)/ward/ward-supervisor \
		$(DESTDIR)$(LIBEXECDIR)/ward/ward-gate
	-rmdir $(DESTDIR)$(LIBEXECDIR)/ward
	rm -f $(patsubst share/oci/%,$(DESTDIR)$(DATADIR)/ward/oci/%,$(OCI_SHARE))
	rm -f $(DESTDIR)$(DATADIR)/ward/oci.ini
	rm -f $(DESTDIR)$(DATADIR)/ward/ward.ini $(DESTDIR)$(DATADIR)/ward/demo/demo.ini \
		$(patsubst share/demo/%,$(DESTDIR)$(DATADIR)/ward/demo/%,$(DEMO_SH) $(DEMO_PY))
	rm -f $(patsubst share/agents/%,$(DESTDIR)$(DATADIR)/ward/agents/%,$(wildcard share/agents/*.ini))
	-rmdir $(DESTDIR)$(DATADIR)/ward/demo $(DESTDIR)$(DATADIR)/ward/agents \
		$(DESTDIR)$(DATADIR)/ward/oci $(DESTDIR)$(DATADIR)/ward
	rm -f $(patsubst share/man/%,$(DESTDIR)$(MANDIR)/man1/%,$(wildcard share/man/*.1))
	rm -f $(patsubst share/man/%,$(DESTDIR)$(MANDIR)/man5/%,$(wildcard share/man/*.5))
	rm -f $(patsubst share/man/%,$(DESTDIR)$(MANDIR)/man8/%,$(wildcard share/man/*.8))
	rm -f $(patsubst share/man/%,$(DESTDIR)$(MANDIR)/man7/%,$(wildcard share/man/*.7))
	rm -f $(DESTDIR)$(DATADIR)/bash-completion/completions/ward \
		$(DESTDIR)$(DATADIR)/zsh/vendor-completions/_ward \
		$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/ward.fish

# A Debian package of the tree (debian/), unsigned, in ../ as
# dpkg-buildpackage leaves it; tests/live/t-deb.sh installs and purges it.
deb:
	dpkg-buildpackage -us -uc -b

# make install/uninstall into a DESTDIR, then the package built from a
# copy of the tree, lintian, installed, run, purged (root; tests/deb-check.sh).
deb-check: all
	tests/deb-check.sh

clean:
	rm -rf $(BUILD) build-asan $(FUZZ_BUILD) ward ward-tui ward-supervisor ward-gate

.PHONY: all check unit unit-only asan asan-live layers docs-check bench install uninstall \
	completions deb deb-check clean tests print-libgit2-soname FORCE \
	fuzz fuzzers fuzz-check
# Keep the test objects: make would otherwise delete them as intermediates.
.SECONDARY:
-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
