# agentcage build. `make deps` installs Debian 12 packages; `make` builds build/agentcage.
CC ?= gcc
CLANG ?= clang
BPFTOOL ?= bpftool
BUILD := build
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -std=gnu11 -I$(BUILD) -Ibpf -Iuser
LDLIBS := -lbpf -lelf -lz -lyaml -lresolv -lpthread

DEPS := libbpf-dev bpftool clang llvm libelf-dev zlib1g-dev libyaml-dev libcriterion-dev \
	pkg-config make gcc python3 linux-image-amd64 qemu-system-x86 busybox-static kmod cpio \
	iproute2 iputils-ping iperf3

USER_SRC := user/main.c user/run.c user/check.c user/policy.c user/rules.c user/json.c \
	user/event.c user/cgroup.c user/lsm.c user/loader.c user/diag.c user/fsutil.c \
	user/netrules.c user/netpolicy.c user/dnsrefresh.c
LIB_SRC := user/policy.c user/rules.c user/json.c user/event.c user/diag.c user/netrules.c user/netpolicy.c
USER_OBJ := $(USER_SRC:user/%.c=$(BUILD)/%.o) $(BUILD)/default_policy.o

.PHONY: all deps test test-unit test-host test-vm demo bench clean
all: $(BUILD)/agentcage

deps:
	@missing=$$(for p in $(DEPS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then apt-get update -qq && \
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; fi

$(BUILD):
	mkdir -p $@

$(BUILD)/%.bpf.o: bpf/%.bpf.c bpf/*.h vmlinux/vmlinux.h | $(BUILD)
	$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_x86 -I/usr/include/$(shell gcc -dumpmachine) -Wall -Ivmlinux -Ibpf -c $< -o $@

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@

$(BUILD)/loader.o: $(BUILD)/cage.skel.h $(BUILD)/net.skel.h
$(BUILD)/%.o: user/%.c user/*.h bpf/*.h | $(BUILD)
	$(CC) $(CFLAGS) -c $< -o $@

# the embedded default policy: policies/default.yaml is its only source
$(BUILD)/default_policy.o: policies/default.yaml user/default_policy.S | $(BUILD)
	$(CC) -c -DPOLICY_FILE='"policies/default.yaml"' user/default_policy.S -o $@

$(BUILD)/agentcage: $(USER_OBJ)
	$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/unit: tests/unit/*.c $(LIB_SRC) user/*.h | $(BUILD)
	$(CC) $(CFLAGS) tests/unit/*.c $(LIB_SRC) -lcriterion -lyaml -lresolv -o $@

test-unit: $(BUILD)/unit
	$(BUILD)/unit

NETTEST_SRC := user/loader.c user/cgroup.c user/fsutil.c user/netpolicy.c user/netrules.c \
	user/policy.c user/rules.c user/event.c user/json.c user/diag.c
$(BUILD)/nettest: tests/host/nettest.c $(NETTEST_SRC) user/*.h bpf/*.h $(BUILD)/cage.skel.h $(BUILD)/net.skel.h
	$(CC) $(CFLAGS) tests/host/nettest.c $(NETTEST_SRC) $(LDLIBS) -o $@

test-host: $(BUILD)/agentcage $(BUILD)/nettest
	tests/host/run.sh $(BUILD)/agentcage
	tests/host/net.sh $(BUILD)/nettest

test-vm: $(BUILD)/agentcage $(BUILD)/uring-test $(BUILD)/multicage
	tests/vm/vm.sh test

$(BUILD)/uring-test: tests/vm/uring.c | $(BUILD)
	$(CC) $(CFLAGS) $< -o $@

MULTICAGE_SRC := user/loader.c user/cgroup.c user/fsutil.c user/netpolicy.c user/netrules.c \
	user/policy.c user/rules.c user/diag.c user/json.c
$(BUILD)/multicage: tests/vm/multicage.c $(MULTICAGE_SRC) user/*.h bpf/*.h $(BUILD)/cage.skel.h $(BUILD)/net.skel.h
	$(CC) $(CFLAGS) tests/vm/multicage.c $(MULTICAGE_SRC) $(LDLIBS) -o $@

test: deps all test-unit test-host test-vm

demo: deps all
	tests/vm/demo.sh $(BUILD)/agentcage

bench: deps all $(BUILD)/bench-floor $(BUILD)/bench-loops $(BUILD)/bench-connrate $(BUILD)/nettest
	@dpkg -s apparmor >/dev/null 2>&1 || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq apparmor
	bench/netbench.sh
	VM_ICOUNT=$${VM_ICOUNT:-1} tests/vm/vm.sh bench

clean:
	rm -rf $(BUILD)

# benchmark helpers (make bench)
$(BUILD)/bench-floor: bench/floor.c $(BUILD)/empty.skel.h
	$(CC) $(CFLAGS) $< -lbpf -lelf -lz -o $@
$(BUILD)/bench-loops: bench/loops.c | $(BUILD)
	$(CC) $(CFLAGS) $< -o $@
$(BUILD)/bench-connrate: bench/connrate.c | $(BUILD)
	$(CC) $(CFLAGS) $< -o $@
