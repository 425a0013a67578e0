# allocbuild: plain make. `make`, `make check`, `make run`, `make install`, `make uninstall`,
# `make asan`, `make fuzz`, `make clean`.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/allocbuild
DATADIR ?= $(PREFIX)/share/allocbuild
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
DESTDIR ?=

CC ?= cc
PKGS = libgit2 libarchive libcrypto libcjson libcurl zlib
CFLAGS ?= -O2 -g
WARN = -Wall -Wextra -Wshadow -Wmissing-prototypes
# recursively expanded: pkg-config runs when a recipe needs it, after deps
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
# headers only for libcurl, libgit2 and libarchive: each is loaded when first
# used (builder/download.c; lib/lazy.h, lib/lazy_git2.c, lib/lazy_archive.c)
LAZY_PKGS = libcurl libgit2 libarchive
PKG_LIBS = $(shell pkg-config --libs $(filter-out $(LAZY_PKGS),$(PKGS)))
# the name the linker would have recorded for a library: soname PKG FILE
soname = $(shell readelf -d "$$(pkg-config --variable=libdir $(1))/$(2)" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) $(PKG_CFLAGS) -MMD -MP
LDLIBS = $(PKG_LIBS) -lbz2 -lpthread -lm

# O is the object directory; the asan build uses its own
O ?= .obj
BIN ?= allocbuild

# the layers: lib/ (base), provenance/ (on lib), builder/ (on both), cli/
# (the command layer, on all three); docs/design.md
LIB_SRC = $(wildcard lib/*.c provenance/*/*.c builder/*.c) $(filter-out cli/main.c,$(wildcard cli/*.c))
LIB_OBJ = $(LIB_SRC:%.c=$(O)/%.o)
# tests link the archive, so they pull in only the objects they use (the
# cmd_*.o need main.c's command table, which tests do not have)
LIB_A = $(O)/liballocbuild.a
UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(O)/tests/%)
FUZZ_SRC = $(wildcard tests/fuzz/fuzz_*.c)
REPLAY_BIN = $(FUZZ_SRC:tests/fuzz/fuzz_%.c=$(O)/tests/replay_%)

all: $(BIN)

$(BIN): $(O)/cli/main.o $(LIB_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(O)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(O)/lib/lazy_git2.o: ALL_CFLAGS += -DAB_SONAME_GIT2='"$(call soname,libgit2,libgit2.so)"'
$(O)/lib/lazy_archive.o: ALL_CFLAGS += -DAB_SONAME_ARCHIVE='"$(call soname,libarchive,libarchive.so)"'

# after calling a function of libgit2 or libarchive not called before (the
# link fails naming it): write the forwarders again from the objects
lazy: $(O)/cli/main.o $(filter-out $(O)/lib/lazy_%.o,$(LIB_OBJ))
	./scripts/gen-lazy.py --init git_libgit2_init --fini git_libgit2_shutdown libgit2 git_ AB_SONAME_GIT2 libgit2-1.5 lib/lazy_git2.c \
	  git2.h git2/sys/mempack.h git2/sys/odb_backend.h -- $^
	./scripts/gen-lazy.py libarchive archive_ AB_SONAME_ARCHIVE libarchive13 lib/lazy_archive.c \
	  archive.h archive_entry.h -- $^

$(LIB_A): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $(LIB_OBJ)

# unit tests that build their fixtures with libgit2 or libarchive link them;
# allocbuild's own calls still go through lib/lazy's forwarders, which load
# the same libraries
TEST_LIBS = $(shell pkg-config --libs libgit2 libarchive)

$(O)/tests/%: tests/unit/%.c $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(LIB_A) $(LDLIBS) $(TEST_LIBS)

# the fuzz targets, linked with a plain main that replays a corpus (no clang needed)
$(O)/tests/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ tests/fuzz/fuzz_$*.c tests/fuzz/replay.c $(LIB_A) $(LDLIBS)

tests: $(BIN) $(UNIT_BIN) $(REPLAY_BIN)

# what the tests need (all), and what the main job needs (run: a subset)
deps:
	@./scripts/install-deps.sh all

deps-run:
	@./scripts/install-deps.sh run

check: deps
	@$(MAKE) --no-print-directory tests
	@ALLOCBUILD=$(CURDIR)/$(BIN) O=$(O) ./tests/run.sh $(T)

# The main job: build the shipped default recipe end to end, offline through
# the Debian mirror of the pinned release tarball.
RECIPE ?= recipes/jemalloc-5.3.0-policy.json
run: deps-run
	@$(MAKE) --no-print-directory $(BIN)
	@./scripts/debian-mirror.sh mirror >/dev/null
	./$(BIN) build --mirror-dir mirror $(RECIPE)

# the one leak that is not allocbuild's is suppressed, with its cause: tests/lsan-libgit2.supp
ASAN_FLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
asan: deps
	@$(MAKE) --no-print-directory O=.obj-asan BIN=.obj-asan/allocbuild CFLAGS="$(ASAN_FLAGS)" LDFLAGS="$(ASAN_FLAGS)" tests
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan-libgit2.supp:print_suppressions=0 \
	  ALLOCBUILD=$(CURDIR)/.obj-asan/allocbuild O=.obj-asan ./tests/run.sh $(T)

# libFuzzer (clang 14): make fuzz FUZZ_SECONDS=600 [FUZZ_TARGETS="recipe tree"];
# every tests/fuzz/fuzz_<name>.c by default, FUZZ_SECONDS each, seeded from
# tests/fuzz/corpus/<name>, with tests/fuzz/<name>.dict when there is one
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang-14
FUZZ_TARGETS ?= $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
FUZZ_FLAGS = -DAB_FUZZING -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
fuzz: deps
	@$(MAKE) --no-print-directory O=.obj-fuzz CC=$(FUZZ_CC) CFLAGS="$(FUZZ_FLAGS)" .obj-fuzz/liballocbuild.a
	@set -e; for t in $(FUZZ_TARGETS); do \
	  echo "$(FUZZ_CC) ... -o .obj-fuzz/fuzz_$$t tests/fuzz/fuzz_$$t.c"; \
	  $(FUZZ_CC) -std=c11 -D_GNU_SOURCE $(PKG_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -o .obj-fuzz/fuzz_$$t \
	    tests/fuzz/fuzz_$$t.c .obj-fuzz/liballocbuild.a $(LDLIBS); \
	  mkdir -p .obj-fuzz/corpus/$$t; \
	  dict=; [ ! -f tests/fuzz/$$t.dict ] || dict=-dict=tests/fuzz/$$t.dict; \
	  echo "./.obj-fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) $$dict"; \
	  ./.obj-fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 $$dict \
	    .obj-fuzz/corpus/$$t tests/fuzz/corpus/$$t; \
	done

# the binary, the man page, docs/ (which the man page cites), the shipped
# recipes with the small projects beside them, and bash completion
INSTALL_DOCS = $(filter-out docs/allocbuild.1,$(wildcard docs/*.md docs/*.py))
INSTALL_RECIPES = $(shell cd recipes && find . -type f ! -name '.*' | LC_ALL=C sort)

# each directory install and uninstall write must be one of its own: not
# empty, not / (uninstall removes what install put there, nothing else);
# every path is quoted for the shell (a PREFIX may hold spaces, not quotes)
INSTALL_DIRS = BINDIR MANDIR DOCDIR DATADIR COMPLETIONDIR
check-install-dirs = $(foreach v,$(INSTALL_DIRS),$(if $(filter-out /,$(strip $($(v)))),,$(error $(v) is '$($(v))': install and uninstall need a directory of their own)))

install: $(BIN)
	$(check-install-dirs)
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(DOCDIR)" "$(DESTDIR)$(COMPLETIONDIR)"
	install -m 755 $(BIN) "$(DESTDIR)$(BINDIR)/allocbuild"
	install -m 644 docs/allocbuild.1 "$(DESTDIR)$(MANDIR)/man1/allocbuild.1"
	install -m 644 $(INSTALL_DOCS) "$(DESTDIR)$(DOCDIR)/"
	chmod 755 "$(DESTDIR)$(DOCDIR)/dsse-verify.py" "$(DESTDIR)$(DOCDIR)/intoto-layout.py"
	for f in $(INSTALL_RECIPES); do \
	  install -D -m 644 "recipes/$$f" "$(DESTDIR)$(DATADIR)/recipes/$$f" || exit 1; \
	done
	install -m 644 scripts/allocbuild.bash "$(DESTDIR)$(COMPLETIONDIR)/allocbuild"

uninstall:
	$(check-install-dirs)
	rm -f "$(DESTDIR)$(BINDIR)/allocbuild" "$(DESTDIR)$(MANDIR)/man1/allocbuild.1"
	rm -f "$(DESTDIR)$(COMPLETIONDIR)/allocbuild"
	for f in $(notdir $(INSTALL_DOCS)); do rm -f "$(DESTDIR)$(DOCDIR)/$$f" || exit 1; done
	for f in $(INSTALL_RECIPES); do rm -f "$(DESTDIR)$(DATADIR)/recipes/$$f" || exit 1; done
	-find "$(DESTDIR)$(DATADIR)/recipes" -depth -type d -empty -delete 2>/dev/null
	-rmdir "$(DESTDIR)$(DOCDIR)" "$(DESTDIR)$(DATADIR)" 2>/dev/null

clean:
	rm -rf .obj .obj-asan .obj-fuzz $(BIN)

.PHONY: all tests deps deps-run check run asan fuzz install uninstall clean lazy

-include $(shell find $(O) -name '*.d' 2>/dev/null)
