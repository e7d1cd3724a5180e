# moat: `make` builds build/moat and build/moat-wrapper; `make check` runs
# every test suite; `make demo` shows the sandbox at work.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
# Where moat looks for its default flake: <bindir>/../share/moat.
SHAREDIR := $(PREFIX)/share/moat
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
DESTDIR ?=
# moat's version lives in one place, src/cli/cli.h (what `moat --version`
# prints); make dist names its tarballs with it, debian/rules checks its
# changelog against it (`make version` prints it).
VERSION := $(shell sed -n 's/.*MOAT_VERSION "\(.*\)".*/\1/p' src/cli/cli.h)

CC ?= cc
CFLAGS ?= -O2 -g
LDFLAGS ?=
# WERROR=1 turns warnings into errors (make check and CI set it).
WERROR ?=
# SANITIZE=address,undefined builds everything with those sanitizers.
SANITIZE ?=
B ?= build

UNAME_S := $(shell uname -s)

WARNINGS := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wformat=2 -Wvla -Wimplicit-fallthrough -Wwrite-strings
ifeq ($(SANITIZE),)
HARDEN := -D_FORTIFY_SOURCE=3 -fstack-protector-strong
else
HARDEN := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
ifneq ($(WERROR),)
WARNINGS += -Werror
endif

ALL_CFLAGS := -std=c17 -D_GNU_SOURCE -Isrc $(WARNINGS) $(HARDEN) -fPIE -MMD -MP $(CFLAGS)
LDHARDEN_Linux := -Wl,-z,relro,-z,now
ALL_LDFLAGS := -pie $(LDHARDEN_$(UNAME_S)) $(if $(SANITIZE),-fsanitize=$(SANITIZE)) $(LDFLAGS)

# One backend per platform, chosen here rather than by #ifdef in functions.
SANDBOX_Linux := src/sandbox/landlock.c src/sandbox/landlock_abi.c src/sandbox/seccomp.c \
	src/sandbox/syscalls.c src/sandbox/syscalls_i386.c \
	src/sandbox/caps.c src/sandbox/namespaces.c src/sandbox/netns.c
SANDBOX_Darwin := src/sandbox/seatbelt.c
SANDBOX_SRC := $(SANDBOX_$(UNAME_S)) src/sandbox/sbpl.c
PLATFORM_Linux := src/base/platform_linux.c
PLATFORM_Darwin := src/base/platform_darwin.c

# The hosts policy's proxy (epoll, splice): Linux alone; macOS refuses hosts.
PROXY_Linux := src/launch/proxy.c src/launch/proxy_addr.c
PROXY_Darwin := src/launch/proxy_none.c
# Lock files made beside protected paths (inotify): Linux alone.
LOCKWATCH_Linux := src/launch/lockwatch.c
LOCKWATCH_Darwin := src/launch/lockwatch_none.c

LIB_SRC := $(PLATFORM_$(UNAME_S)) $(filter-out src/base/platform_%.c,$(wildcard src/base/*.c)) \
	$(filter-out src/launch/proxy%.c src/launch/lockwatch%.c,$(wildcard src/config/*.c src/profile/*.c src/context/*.c \
	src/shells/*.c src/approvals/*.c src/trace/*.c src/report/*.c src/launch/*.c)) \
	$(PROXY_$(UNAME_S)) $(LOCKWATCH_$(UNAME_S)) $(SANDBOX_SRC)
CLI_SRC := $(wildcard src/cli/*.c)
WRAPPER_SRC := $(wildcard src/wrapper/*.c)
# Unit tests: tests/unit/test_linux_*.c and test_darwin_*.c are built on
# that platform alone, every other test_*.c everywhere.
UNIT_OS_Linux := linux
UNIT_OS_Darwin := darwin
UNIT_SRC := $(filter-out tests/unit/test_linux_% tests/unit/test_darwin_%,\
	$(wildcard tests/unit/test_*.c)) $(wildcard tests/unit/test_$(UNIT_OS_$(UNAME_S))_*.c)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
# The escape probes the end-to-end suites run are Linux programs.
HELPER_SRC_Linux := $(wildcard tests/helpers/*.c)
HELPER_SRC := $(HELPER_SRC_$(UNAME_S))

obj = $(patsubst %.c,$(B)/obj/%.o,$(1))

# --- the libc moat links with ------------------------------------------------
# moat-wrapper runs on every tool invocation and `moat run` starts every
# session, so both are linked statically: no dynamic loader (130 us of
# `moat run` once, issue 15). With musl where it is installed (Debian's
# musl-tools) and CC is the default: glibc's static start-up probes the
# CPU with cpuid some 70 times, and on a virtual machine each one traps to
# the hypervisor; bench/run measured 585 us of start-up per exec with glibc
# and 14 us with musl (docs/HACKING.md). LIBC=glibc builds with CC as
# before; sanitizer builds always do. Unit tests and fuzz replayers link
# the same way as moat, the escape probes (tests/helpers) with CC.
MULTIARCH := $(if $(filter Linux,$(UNAME_S)),$(shell $(CC) -print-multiarch 2>/dev/null))
MUSL_LIB := /usr/lib/$(subst -gnu,-musl,$(MULTIARCH))
MUSL_FOUND := $(and $(filter default,$(origin CC)),$(MULTIARCH),$(wildcard $(MUSL_LIB)/rcrt1.o),$(shell command -v musl-gcc))
LIBC ?= $(if $(and $(MUSL_FOUND),$(if $(SANITIZE),,1)),musl,glibc)
ifeq ($(LIBC),musl)
MUSL_INCLUDE := $(B)/musl-include/.links
MOAT_CC := musl-gcc -isystem $(B)/musl-include
# musl-gcc cannot link a static PIE (it ignores -static-pie), so gcc does,
# with musl's start files and libc: a static binary that keeps ASLR.
CRTBEGIN := $(shell $(CC) -print-file-name=crtbeginS.o)
CRTEND := $(shell $(CC) -print-file-name=crtendS.o)
LIBGCC := $(shell $(CC) -print-libgcc-file-name)
LINK = $(CC) -static-pie -nostdlib $(LDHARDEN_Linux) $(LDFLAGS) -o $@ $(MUSL_LIB)/rcrt1.o $(MUSL_LIB)/crti.o \
	$(CRTBEGIN) $^ -L$(MUSL_LIB) -lc $(LIBGCC) $(CRTEND) $(MUSL_LIB)/crtn.o
LINK_STATIC = $(LINK)
else ifeq ($(LIBC),glibc)
MUSL_INCLUDE :=
MOAT_CC = $(CC)
LINK = $(CC) $(ALL_LDFLAGS) -o $@ $^
LINK_STATIC = $(CC) $(ALL_LDFLAGS) $(if $(SANITIZE),,$(STATIC_$(UNAME_S))) -o $@ $^
STATIC_Linux := -static-pie
else
$(error LIBC is musl or glibc, not '$(LIBC)')
endif

LIB := $(B)/libmoat.a
UNIT_BIN := $(patsubst tests/unit/%.c,$(B)/tests/unit/%,$(UNIT_SRC))
FUZZ_BIN := $(patsubst tests/fuzz/%.c,$(B)/tests/fuzz/%,$(FUZZ_SRC))
HELPER_BIN := $(patsubst tests/helpers/%.c,$(B)/tests/helpers/%,$(HELPER_SRC))

.SECONDARY:
.PHONY: all check check-kernel unit test-bins install uninstall demo bench clean fuzz format version
all: $(B)/moat $(B)/moat-wrapper

$(B)/obj/%.o: %.c | $(MUSL_INCLUDE)
	@mkdir -p $(@D)
	$(MOAT_CC) $(ALL_CFLAGS) -c $< -o $@

# musl-gcc sees musl's headers alone; the kernel's come from these links.
$(B)/musl-include/.links:
	@mkdir -p $(@D)
	ln -sfn /usr/include/linux /usr/include/asm-generic $(@D)/
	ln -sfn /usr/include/$(MULTIARCH)/asm $(@D)/asm
	@touch $@

$(LIB): $(call obj,$(LIB_SRC))
	@rm -f $@
	$(AR) rcs $@ $^

$(B)/moat: $(call obj,$(CLI_SRC)) $(LIB)
	$(LINK_STATIC)

$(B)/moat-wrapper: $(call obj,$(WRAPPER_SRC)) $(LIB)
	$(LINK_STATIC)

# The test build (Linux): the same binaries with tests/abi/landlock_abi.c in
# place of src/sandbox/landlock_abi.c, so that MOAT_TEST_LANDLOCK_ABI=N makes
# them act as on Landlock ABI N (tests/sandbox/abi.sh). Never installed; a
# release build has no such switch.
ABI_BIN_Linux := $(B)/abi/moat $(B)/abi/moat-wrapper
ABI_BIN := $(ABI_BIN_$(UNAME_S))
ABI_OBJ := $(filter-out %/landlock_abi.o,$(call obj,$(LIB_SRC))) $(B)/obj/tests/abi/landlock_abi.o
$(B)/abi/moat: $(call obj,$(CLI_SRC)) $(ABI_OBJ)
	@mkdir -p $(@D)
	$(LINK_STATIC)

$(B)/abi/moat-wrapper: $(call obj,$(WRAPPER_SRC)) $(ABI_OBJ)
	@mkdir -p $(@D)
	$(LINK_STATIC)

# The SBPL reader only the tests need (moat's own output, read back).
$(B)/tests/unit/test_sbpl: $(B)/obj/tests/unit/sbpl_reader.o

$(B)/tests/unit/%: $(B)/obj/tests/unit/%.o $(LIB)
	@mkdir -p $(@D)
	$(LINK)

# Fuzz targets build here as plain corpus replayers, so they cannot rot;
# `make fuzz` builds them with libFuzzer (clang) for real fuzzing.
$(B)/tests/fuzz/%: $(B)/obj/tests/fuzz/%.o $(B)/obj/tests/fuzz/replay.o $(LIB)
	@mkdir -p $(@D)
	$(LINK)

# Small programs the end-to-end tests run inside the sandbox (escape probes),
# built with the system's compiler and libc: they are the attacker's tools,
# not moat.
$(B)/obj/tests/helpers/%.o: tests/helpers/%.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(B)/tests/helpers/%: $(B)/obj/tests/helpers/%.o
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ -lpthread

test-bins: all $(UNIT_BIN) $(FUZZ_BIN) $(HELPER_BIN) $(ABI_BIN)

check:
	$(MAKE) WERROR=1 test-bins
	B=$(B) tests/run-all

# The sandbox and escape suites on Debian 12's stock kernel (Landlock ABI 2),
# booted under qemu: see tests/kernel/run.
check-kernel:
	$(MAKE) WERROR=1 test-bins
	B=$(B) tests/kernel/run

unit: $(UNIT_BIN)
	B=$(B) tests/run-all unit

FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
# `make -j2 fuzz`: the library is compiled once with the fuzzer's
# instrumentation, each target linked against it, and the targets fuzzed
# side by side, each for FUZZ_SECONDS, its output in $(B)/fuzz/NAME.log
# (shown when it finds something).
FUZZ_CFLAGS := -std=c17 -D_GNU_SOURCE -Isrc -g -O1
FUZZ_NAMES := $(patsubst tests/fuzz/%.c,%,$(FUZZ_SRC))
FUZZ_LIB := $(B)/fuzz/libmoat-fuzz.a
.PHONY: $(addprefix fuzz-run-,$(FUZZ_NAMES))
fuzz: $(addprefix fuzz-run-,$(FUZZ_NAMES))

$(B)/fuzz/obj/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -c $< -o $@

$(FUZZ_LIB): $(patsubst %.c,$(B)/fuzz/obj/%.o,$(LIB_SRC))
	@rm -f $@
	$(AR) rcs $@ $^

$(B)/fuzz/bin/%: tests/fuzz/%.c $(FUZZ_LIB)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined $< $(FUZZ_LIB) -o $@

$(addprefix fuzz-run-,$(FUZZ_NAMES)): fuzz-run-%: $(B)/fuzz/bin/%
	@mkdir -p $(B)/fuzz/$*-corpus
	@echo "fuzz: $* for $(FUZZ_SECONDS)s"
	@$< -max_total_time=$(FUZZ_SECONDS) $(B)/fuzz/$*-corpus tests/fuzz/corpus/$(*:fuzz_%=%) \
		>$(B)/fuzz/$*.log 2>&1 || { tail -n 60 $(B)/fuzz/$*.log; echo "fuzz: $* failed (log: $(B)/fuzz/$*.log)"; exit 1; }
	@echo "fuzz: $* ok, $$(grep -c . $(B)/fuzz/$*.log) lines of log; $$(tail -n 1 $(B)/fuzz/$*.log)"

demo: all
	@tests/demo.sh $(B)

bench: all
	@bench/run $(B)

# What install puts down; uninstall removes exactly these (and the
# directories of share/moat, when they are left empty).
NIX_FILES := nix/moat.nix nix/shells.nix nix/wrap.nix
INSTALLED := $(BINDIR)/moat $(BINDIR)/moat-wrapper $(MANDIR)/man1/moat.1 \
	$(SHAREDIR)/flake.nix $(SHAREDIR)/flake.lock $(addprefix $(SHAREDIR)/,$(NIX_FILES)) $(SHAREDIR)/nix/installed.nix \
	$(BASHCOMPDIR)/moat $(ZSHCOMPDIR)/_moat $(FISHCOMPDIR)/moat.fish

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(B)/moat $(B)/moat-wrapper $(DESTDIR)$(BINDIR)/
	install -m 0644 docs/moat.1 $(DESTDIR)$(MANDIR)/man1/
	# moat's default flake (MOAT_FLAKE unset): $(SHAREDIR)/flake.nix,
	# whose shells link to the moat-wrapper installed above.
	install -d $(DESTDIR)$(SHAREDIR)/nix
	install -m 0644 flake.nix flake.lock $(DESTDIR)$(SHAREDIR)/
	install -m 0644 $(NIX_FILES) $(DESTDIR)$(SHAREDIR)/nix/
	printf '{ wrapper = "%s"; }\n' "$(BINDIR)/moat-wrapper" >$(DESTDIR)$(SHAREDIR)/nix/installed.nix
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0644 completions/moat.bash $(DESTDIR)$(BASHCOMPDIR)/moat
	install -m 0644 completions/_moat $(DESTDIR)$(ZSHCOMPDIR)/_moat
	install -m 0644 completions/moat.fish $(DESTDIR)$(FISHCOMPDIR)/moat.fish

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(SHAREDIR)/nix $(DESTDIR)$(SHAREDIR) 2>/dev/null

# --- make dist: the release tarballs ---------------------------------------
# dist/moat-VERSION-ARCH-linux.tar.gz and dist/SHA256SUMS. Each tarball holds
# one directory laid out as `make install PREFIX=/usr/local` lays it out
# (bin/, share/: the man page, the completions, the default flake, README
# and LICENSE in share/doc/moat), so `tar -xzf ... -C /usr/local
# --strip-components=1` installs it. moat and moat-wrapper are static (musl)
# and stripped.
#
# Reproducible: two clean clones of one commit, built in different
# directories at different times, give byte-identical tarballs
# (tests/install/package.sh checks it). Time is the last commit's
# (SOURCE_DATE_EPOCH), the build directory is mapped to . in the binaries,
# each build starts from an empty build-dist-ARCH, members are sorted with
# fixed owners and modes, and gzip stores no name or time.
#
# x86_64 is built with Debian's musl-tools (an x86_64 host); aarch64 with
# `zig cc -target aarch64-linux-musl` (zig from .ci/install-zig, or ZIG=).
# DIST_ARCHS=x86_64 builds the first alone.
DIST_ARCHS ?= x86_64 aarch64
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null)
DIST_FLAGS = CFLAGS='-O2 -ffile-prefix-map=$(CURDIR)=.' LDFLAGS=-s PREFIX=/usr/local
DIST_NAME = moat-$(VERSION)-$*-linux
DIST_ELF_x86_64 := x86-64
DIST_ELF_aarch64 := ARM aarch64
.PHONY: dist $(addprefix dist-,$(DIST_ARCHS))
dist: $(addprefix dist-,$(DIST_ARCHS))
	cd dist && sha256sum $(foreach a,$(DIST_ARCHS),moat-$(VERSION)-$(a)-linux.tar.gz) >SHA256SUMS
	@cat dist/SHA256SUMS

dist-x86_64: DIST_TOOLCHAIN = LIBC=musl
dist-aarch64: DIST_TOOLCHAIN = LIBC=glibc CC="$$zig cc -target aarch64-linux-musl" AR="$$zig ar"
$(addprefix dist-,$(DIST_ARCHS)): dist-%:
	@[ -n "$(SOURCE_DATE_EPOCH)" ] || { echo "make: $@ needs SOURCE_DATE_EPOCH (or a git checkout)" >&2; exit 1; }
	@[ "$*" != x86_64 ] || [ "$$(uname -m)" = x86_64 -a -n "$(MUSL_FOUND)" ] || { \
		echo "make: $@ needs an x86_64 host with musl-gcc (Debian's musl-tools)" >&2; exit 1; }
	rm -rf build-dist-$*
	@zig='$(ZIG)'; if [ $* = aarch64 ] && [ -z "$$zig" ]; then zig=$$(.ci/install-zig) || exit 1; fi; \
	$(MAKE) --no-print-directory B=build-dist-$* $(DIST_TOOLCHAIN) $(DIST_FLAGS) \
		DESTDIR=$(CURDIR)/build-dist-$*/stage install
	@for bin in moat moat-wrapper; do what=$$(file -b build-dist-$*/stage/usr/local/bin/$$bin); \
		case $$what in *"$(DIST_ELF_$*)"*static*) ;; \
		*) echo "make: $$bin is not a static $* executable: $$what" >&2; exit 1 ;; esac; done
	mv build-dist-$*/stage/usr/local build-dist-$*/$(DIST_NAME)
	install -d build-dist-$*/$(DIST_NAME)/share/doc/moat
	install -m 0644 README.md LICENSE build-dist-$*/$(DIST_NAME)/share/doc/moat/
	@mkdir -p dist
	LC_ALL=C tar --sort=name --owner=0 --group=0 --numeric-owner --mode=go-w,a+rX \
		--mtime=@$(SOURCE_DATE_EPOCH) -C build-dist-$* -cf - $(DIST_NAME) | gzip -9n >dist/$(DIST_NAME).tar.gz

# The Darwin cross-build: moat, moat-wrapper and the unit tests compiled and
# linked for macOS on arm64 and x86_64 with `zig cc`, warnings as errors,
# each in build-darwin-<arch>; nothing is run (docs/macos.md). The toolchain
# comes from .ci/install-zig (cached), or ZIG=/path/to/zig.
ZIG ?=
DARWIN_ARCHS := arm64 x86_64
DARWIN_TARGET_arm64 := aarch64-macos
DARWIN_TARGET_x86_64 := x86_64-macos
.PHONY: darwin $(addprefix darwin-,$(DARWIN_ARCHS))
darwin: $(addprefix darwin-,$(DARWIN_ARCHS))
$(addprefix darwin-,$(DARWIN_ARCHS)): darwin-%:
	@command -v file >/dev/null || { echo "make: $@ needs file(1) to check what it linked" >&2; exit 1; }
	@zig='$(ZIG)'; [ -n "$$zig" ] || zig=$$(.ci/install-zig) || exit 1; \
	echo "== $@: $$zig cc -target $(DARWIN_TARGET_$*), warnings as errors, in build-darwin-$*"; \
	$(MAKE) --no-print-directory UNAME_S=Darwin WERROR=1 B=build-darwin-$* \
		CC="$$zig cc -target $(DARWIN_TARGET_$*)" AR="$$zig ar" test-bins
	@n=0; for bin in build-darwin-$*/moat build-darwin-$*/moat-wrapper \
		build-darwin-$*/tests/unit/test_* build-darwin-$*/tests/fuzz/fuzz_*; do \
		what=$$(file -b "$$bin"); \
		case $$what in "Mach-O 64-bit $* executable"*) ;; \
		*) echo "make: $$bin is not a Mach-O $* executable: $$what" >&2; exit 1 ;; esac; \
		case $$bin in */moat|*/moat-wrapper) file "$$bin" ;; *) n=$$((n + 1)) ;; esac; \
	done; echo "$@: $$n test programs linked, Mach-O 64-bit $* executables too"

version:
	@echo $(VERSION)

format:
	clang-format -i $$(git ls-files --cached --others --exclude-standard '*.c' '*.h')

clean:
	rm -rf $(B) build-* dist

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
