# SPDX-License-Identifier: GPL-2.0-only
# agentcage build. `make deps` installs Debian 12 packages; `make` builds
# build/agentcage and never installs anything.
#
#   lib/      -> build/libagentcage.a (policy, kernel, cage, event, util)
#   bpf/      -> build/*.bpf.o and their skeletons build/*.skel.h
#   cli/, daemon/ -> build/agentcage, linked with the library
#   tests/    -> build/unit, build/nettest, build/multicage, ... (the library too)
CC ?= gcc
CLANG ?= clang
BPFTOOL ?= bpftool
AR ?= ar
BUILD ?= build
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra
override CPPFLAGS += -Iinclude -Ilib -I$(BUILD)
DEPFLAGS = -MMD -MP
LDLIBS := -lbpf -lelf -lz -lyaml -lresolv -lpthread -lseccomp -ljson-c -lsystemd
# the BPF target architecture, as the kernel's tools name it
BPF_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' \
	-e 's/ppc64.*/powerpc/' -e 's/riscv64/riscv/' -e 's/s390x/s390/' -e 's/loongarch64/loongarch/')
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -Wall \
	-I/usr/include/$(shell $(CC) -dumpmachine) -Iinclude -Ivmlinux -Ibpf

DEPS := libbpf-dev bpftool clang llvm libelf-dev zlib1g-dev libyaml-dev libcriterion-dev \
	libseccomp-dev libjson-c-dev libsystemd-dev pkg-config make gcc python3 linux-image-amd64 qemu-system-x86 busybox-static kmod cpio \
	iproute2 iputils-ping iperf3 python3-pil

LIB_SRC := $(sort $(wildcard lib/*/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/lib/policy/default_policy.o
CLI_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard cli/*.c daemon/*.c)))
LIB := $(BUILD)/libagentcage.a
SKELS := $(BUILD)/cage.skel.h $(BUILD)/net.skel.h

.DELETE_ON_ERROR:
.SECONDARY:
.PHONY: all deps test test-local test-unit test-host test-vm demo bench clean install

all: $(BUILD)/agentcage

deps:
	@missing=$$(for p in $(DEPS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then apt-get update -qq && \
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; fi

# BPF objects and skeletons
$(BUILD)/%.bpf.o: bpf/%.bpf.c vmlinux/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@
$(BUILD)/%.bpf.o: bench/%.bpf.c vmlinux/vmlinux.h
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@
$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@

# userspace objects: every .c under lib/, cli/, daemon/, tests/ and bench/
$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -std=gnu11 $(DEPFLAGS) -c $< -o $@
$(BUILD)/lib/kernel/loader.o $(BUILD)/lib/kernel/pin.o $(BUILD)/lib/kernel/adopt.o: $(SKELS)

# the embedded default policy: policies/default.yaml is its only source
$(BUILD)/lib/policy/default_policy.o: lib/policy/default_policy.S policies/default.yaml
	@mkdir -p $(@D)
	$(CC) -c -DPOLICY_FILE='"policies/default.yaml"' $< -o $@

$(LIB): $(LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/agentcage: $(CLI_OBJ) $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# make install [PREFIX=/usr/local] [DESTDIR=...]: the binary, the systemd
# unit (ExecStart in $(BINDIR)), the man pages, and the example policies
# into /etc/agentcage/policies as NAME.yaml.example (the daemon reads only
# *.yaml), never overwriting a file that is there.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
UNITDIR ?= $(PREFIX)/lib/systemd/system
POLICYDIR ?= /etc/agentcage/policies
EXAMPLES := policies/python-runner.yaml policies/web-agent.yaml

install: $(BUILD)/agentcage
	install -D -m 0755 $(BUILD)/agentcage $(DESTDIR)$(BINDIR)/agentcage
	install -d -m 0755 $(DESTDIR)$(UNITDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(MANDIR)/man8
	sed 's|@BINDIR@|$(BINDIR)|g' daemon/agentcage.service > $(DESTDIR)$(UNITDIR)/agentcage.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/agentcage.service
	install -m 0644 man/agentcage.1 $(DESTDIR)$(MANDIR)/man1/agentcage.1
	install -m 0644 man/agentcage-policy.5 $(DESTDIR)$(MANDIR)/man5/agentcage-policy.5
	install -m 0644 man/agentcage-daemon.8 $(DESTDIR)$(MANDIR)/man8/agentcage-daemon.8
	install -d -m 0755 $(DESTDIR)$(POLICYDIR)
	@for f in $(EXAMPLES); do t=$(DESTDIR)$(POLICYDIR)/$$(basename $$f).example; \
		if [ -e $$t ]; then echo "kept $$t (it exists)"; \
		else echo "install $$f $$t"; install -m 0644 $$f $$t; fi; done

# tests
UNIT_OBJ := $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard tests/unit/*.c)))
$(BUILD)/unit: $(UNIT_OBJ) $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -lcriterion $(LDLIBS) -o $@
$(BUILD)/nettest: $(BUILD)/tests/host/nettest.o $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@
$(BUILD)/multicage: $(BUILD)/tests/vm/multicage.o $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@
$(BUILD)/uring-test: $(BUILD)/tests/vm/uring.o
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@
$(BUILD)/tests/host/nettest.o $(BUILD)/tests/vm/multicage.o: $(SKELS)

test-unit: $(BUILD)/unit
	$(BUILD)/unit

test-host: $(BUILD)/agentcage $(BUILD)/nettest
	tests/host/run.sh $(BUILD)/agentcage
	tests/host/landlock.sh $(BUILD)/agentcage
	tests/host/net.sh $(BUILD)/nettest
	tests/host/install.sh

# helper programs of the VM suites: tests/vm/helpers/NAME.c -> build/vmtest/NAME
VMTEST := $(patsubst tests/vm/helpers/%.c,$(BUILD)/vmtest/%,$(wildcard tests/vm/helpers/*.c))
$(BUILD)/vmtest/%: $(BUILD)/tests/vm/helpers/%.o
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@

test-vm: $(BUILD)/agentcage $(BUILD)/uring-test $(BUILD)/multicage $(VMTEST)
	tests/vm/vm.sh test

# --- reliability: make sanitize, make fuzz ---------------------------------
# Both build the library again with clang into their own directory (clang's
# UBSan honours log_path, so tests/san/run.sh sees every report, Criterion's
# forked tests included). A plain sub-make builds the BPF skeletons there
# first: BPF_CFLAGS asks $(CC) for the multiarch include directory.
# A fuzz target NAME is tests/fuzz/fuzz_NAME.c (LLVMFuzzerTestOneInput), its
# seeds tests/fuzz/corpus/NAME/, optionally tests/fuzz/NAME.dict: add it here.
FUZZ_TARGETS := policy netspec proto yaml llaudit pattern
FUZZ_SECONDS ?= 60
SAN_BUILD := $(BUILD)/san
FUZZ_BUILD := $(BUILD)/fuzz
SAN_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
FUZZ_CFLAGS := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
DEPS += libclang-rt-14-dev
.PHONY: sanitize fuzz

sanitize:
	$(MAKE) BUILD=$(SAN_BUILD) $(SAN_BUILD)/cage.skel.h $(SAN_BUILD)/net.skel.h
	$(MAKE) BUILD=$(SAN_BUILD) CC=$(CLANG) CFLAGS="$(SAN_CFLAGS)" \
		LDFLAGS="-fsanitize=address,undefined" \
		$(SAN_BUILD)/unit $(SAN_BUILD)/agentcage $(SAN_BUILD)/nettest
	tests/san/run.sh $(SAN_BUILD)

fuzz:
	$(MAKE) BUILD=$(FUZZ_BUILD) $(FUZZ_BUILD)/cage.skel.h $(FUZZ_BUILD)/net.skel.h
	$(MAKE) BUILD=$(FUZZ_BUILD) CC=$(CLANG) CFLAGS="$(FUZZ_CFLAGS)" \
		LDFLAGS="-fsanitize=fuzzer,address,undefined" $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz-%)
	tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

$(BUILD)/fuzz-%: $(BUILD)/tests/fuzz/fuzz_%.o $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

# The host's checks run beside the VM suites: the guests leave a core idle
# part of the time (RCU grace periods while programs detach), which the
# host's single-threaded checks use. The VM's lines stream ([vmN] ...); the
# host's are printed whole when they end (build/test-local.log).
test: deps
	$(MAKE) all $(BUILD)/unit $(BUILD)/nettest $(BUILD)/uring-test $(BUILD)/multicage $(VMTEST)
	$(MAKE) -j2 test-local test-vm

# what make test runs on the host itself, one after the other
test-local:
	@echo "make test: the host's checks run now; their output comes when they end"
	@( $(MAKE) -j1 test-unit test-host && $(MAKE) -j1 sanitize && \
	   $(MAKE) -j1 fuzz FUZZ_SECONDS=15 ) > $(BUILD)/test-local.log 2>&1; st=$$?; \
	 sed 's/^/[host] /' $(BUILD)/test-local.log; echo "[host] make test-local: status $$st"; exit $$st

demo: deps
	$(MAKE) all
	tests/vm/demo.sh $(BUILD)/agentcage

# benchmarks (make bench)
# The floor's hooks: every LSM hook of agentcage's own objects, read from
# them, so that the floor cannot miss a hook added since (bench/empty.bpf.c)
LLVM_OBJDUMP ?= llvm-objdump
$(BUILD)/floor-hooks.h: $(BUILD)/cage.bpf.o $(BUILD)/net.bpf.o
	$(LLVM_OBJDUMP) -t $^ | sed -n 's/.* F lsm\/\([a-z0-9_]*\)[[:space:]].*/EMPTY(\1)/p' | sort -u > $@.tmp
	test -s $@.tmp && mv $@.tmp $@
$(BUILD)/empty.bpf.o: $(BUILD)/floor-hooks.h
$(BUILD)/empty.bpf.o: BPF_CFLAGS += -I$(BUILD)
$(BUILD)/bench/floor.o: $(BUILD)/empty.skel.h
$(BUILD)/bench-floor: $(BUILD)/bench/floor.o
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -lbpf -lelf -lz -o $@
$(BUILD)/bench-loops: $(BUILD)/bench/loops.o
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@
$(BUILD)/bench-connrate: $(BUILD)/bench/connrate.o
	$(CC) $(CFLAGS) $(LDFLAGS) $^ -o $@

bench: deps
	$(MAKE) all $(BUILD)/bench-floor $(BUILD)/bench-loops $(BUILD)/bench-connrate $(BUILD)/nettest
	@dpkg -s apparmor >/dev/null 2>&1 || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq apparmor
	bench/netbench.sh
	bench/llbench.sh
	VM_ICOUNT=$${VM_ICOUNT:-1} tests/vm/vm.sh bench
	ic=$${VM_ICOUNT:-1}; VM_ICOUNT=$$ic VM_OUT=$(abspath $(BUILD))/vm/out-daemon-bench VM_LOG=$(abspath $(BUILD))/vm/daemon-bench.log \
		tests/vm/vm.sh run $(CURDIR)/bench/daemon-bench.sh $(CURDIR) $$([ $$ic = 1 ] && echo icount || echo wall) \
		ROUNDS="$${ROUNDS:-}" RELOADS="$${RELOADS:-}" RULES="$${RULES:-}" CAGES="$${CAGES:-}" \
		POLL_US="$${POLL_US:-}" NOFILE="$${NOFILE:-}" N_OPEN="$${N_OPEN:-}" N_CREATE="$${N_CREATE:-}" N_SYS="$${N_SYS:-}"

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
