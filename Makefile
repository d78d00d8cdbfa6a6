# fabprobe — one plain Makefile.
#   make            build ./fabprobe
#   make check      build and run every test (unit + integration), ends with "N passed, N failed, N skipped"
#   make config     print the optional dependencies that were detected
#   make demo       run fabprobe across the emulated cluster (root) or locally
#   make SANITIZE=address,undefined   the same build with sanitizers, in its own tree (build-san)
#   make check-san  that build's unit tests, offline integration tests and fuzz replays
#   make fuzz FUZZ_SECONDS=N   each libFuzzer target (clang) N seconds from the seed corpus
# Optional dependencies: WITH_HWLOC, WITH_IBVERBS, WITH_CUDA, WITH_NCCL = auto | yes | no.

VERSION      := 0.1.0
CC           := mpicc
CFLAGS       ?= -O2 -g
WARN         := -Wall -Wextra -Werror
CPPFLAGS     += -std=c11 -D_GNU_SOURCE -iquote bench -iquote topo -iquote kernels -DFP_VERSION='"$(VERSION)"' \
                -DFP_FEATURES='"hwloc=$(HAVE_HWLOC) ibverbs=$(HAVE_IBVERBS) cuda=$(HAVE_CUDA) nccl=$(HAVE_NCCL)"'
LDLIBS       += -lm
# Sanitizers (e.g. SANITIZE=address,undefined) build a tree of their own, so that switching
# never mixes objects; any report fails (-fno-sanitize-recover).
SANITIZE     ?=
BUILD        ?= $(if $(SANITIZE),build-san,build)
ifneq ($(SANITIZE),)
  CFLAGS     := -O1 -g -fno-omit-frame-pointer -fsanitize=$(SANITIZE) -fno-sanitize-recover=all
endif

WITH_HWLOC   ?= auto
WITH_IBVERBS ?= auto
WITH_CUDA    ?= auto
WITH_NCCL    ?= auto
CUDA_HOME    ?= /usr/local/cuda
# device code for Turing (sm_75), Hopper (sm_90: H100, H200) and Blackwell (sm_100), and PTX for
# what comes after (JIT-compiled at the first launch); gpu-check.sh builds for its GPU alone
NVCC_ARCH    ?= -gencode arch=compute_75,code=sm_75 -gencode arch=compute_90,code=sm_90 \
                -gencode arch=compute_100,code=[sm_100,compute_100]
NVCCFLAGS    ?= -O2 $(NVCC_ARCH)
# NCCL, the first place that has both nccl.h and libnccl.so (or the .so.2 alone, as Python's
# wheel ships it): NCCL_HOME (when set), beside CUDA, the system's paths (NCCL_SYS_ROOT/usr,
# the multiarch directory Debian's and Ubuntu's packages use), the nvidia-nccl-cu* wheel under
# each of NCCL_PY_SITE (default: Python's site-packages). `make config` says which it took.
NCCL_HOME    ?=
NCCL_SYS_ROOT ?=
NCCL_PY_SITE ?= $(shell python3 -c 'import site; print(" ".join(site.getsitepackages() + [site.getusersitepackages()]))' 2>/dev/null)
MULTIARCH    := $(shell gcc -print-multiarch 2>/dev/null)

# resolve(NAME, WITH_X value, found?) -> yes/no; "yes" with nothing found is an error
define resolve
$(if $(filter no,$(2)),no,$(if $(3),yes,$(if $(filter yes,$(2)),$(error WITH_$(1)=yes but $(1) was not found),no)))
endef
libdir = $(firstword $(foreach d,lib64 lib,$(if $(wildcard $(1)/$(d)/$(2)),$(1)/$(d))))

HAVE_HWLOC   := $(call resolve,HWLOC,$(WITH_HWLOC),$(shell pkg-config --exists hwloc 2>/dev/null && echo y))
HAVE_IBVERBS := $(call resolve,IBVERBS,$(WITH_IBVERBS),$(shell pkg-config --exists libibverbs 2>/dev/null && echo y))
CUDA_LIBDIR  := $(call libdir,$(CUDA_HOME),libcudart.so)
HAVE_CUDA    := $(call resolve,CUDA,$(WITH_CUDA),$(and $(wildcard $(CUDA_HOME)/bin/nvcc),$(CUDA_LIBDIR)))
# nccl_try(WHERE, INCLUDE DIR, LIB DIRS): take this place, unless an earlier one was taken
nccl_lib = $(firstword $(foreach d,$(1),$(wildcard $(d)/libnccl.so $(d)/libnccl.so.2)))
nccl_try = $(if $(NCCL_WHERE),,$(if $(and $(wildcard $(2)/nccl.h),$(call nccl_lib,$(3))),$(eval NCCL_WHERE := $(1))$(eval \
           NCCL_INCDIR := $(2))$(eval NCCL_LIBFILE := $(call nccl_lib,$(3)))))
NCCL_WHERE   :=
$(if $(NCCL_HOME),$(call nccl_try,NCCL_HOME,$(NCCL_HOME)/include,$(NCCL_HOME)/lib64 $(NCCL_HOME)/lib))
$(call nccl_try,beside CUDA,$(CUDA_HOME)/include,$(CUDA_HOME)/lib64 $(CUDA_HOME)/lib)
$(call nccl_try,system,$(NCCL_SYS_ROOT)/usr/include,$(if $(MULTIARCH),$(NCCL_SYS_ROOT)/usr/lib/$(MULTIARCH)) $(NCCL_SYS_ROOT)/usr/lib64 $(NCCL_SYS_ROOT)/usr/lib)
$(foreach s,$(NCCL_PY_SITE),$(call nccl_try,Python wheel,$(s)/nvidia/nccl/include,$(s)/nvidia/nccl/lib))
NCCL_LIBDIR  := $(if $(NCCL_LIBFILE),$(patsubst %/,%,$(dir $(NCCL_LIBFILE))))
HAVE_NCCL    := $(call resolve,NCCL,$(WITH_NCCL),$(and $(filter yes,$(HAVE_CUDA)),$(NCCL_WHERE)))

ifeq ($(HAVE_HWLOC),yes)
  CPPFLAGS += -DHAVE_HWLOC=1 $(shell pkg-config --cflags hwloc)
  LDLIBS   += $(shell pkg-config --libs hwloc)
endif
ifeq ($(HAVE_IBVERBS),yes)
  CPPFLAGS += -DHAVE_IBVERBS=1 $(shell pkg-config --cflags libibverbs)
  # XDR and later rates exist only in ibv_port_attr.active_speed_ex (rdma-core 47 and later)
  CPPFLAGS += $(if $(shell grep -qs active_speed_ex $(shell pkg-config --variable=includedir libibverbs)/infiniband/verbs.h && echo y),-DHAVE_IBV_SPEED_EX=1)
  LDLIBS   += $(shell pkg-config --libs libibverbs)
endif
# NCCL before CUDA: its header and its folder in the run path come first, so that an NCCL_HOME
# (or the wheel) wins over another NCCL beside CUDA
ifeq ($(HAVE_NCCL),yes)
  CPPFLAGS += -DHAVE_NCCL=1 -I$(NCCL_INCDIR)
  LDLIBS   += $(NCCL_LIBFILE) -Wl,-rpath,$(NCCL_LIBDIR)  # by its path: the wheel has no libnccl.so
endif
ifeq ($(HAVE_CUDA),yes)
  CPPFLAGS += -DHAVE_CUDA=1 -I$(CUDA_HOME)/include
  LDLIBS   += -L$(CUDA_LIBDIR) -Wl,-rpath,$(CUDA_LIBDIR) -lcudart -lstdc++  # nvcc objects need the C++ runtime
endif

# The build configuration is part of every object's inputs: switching WITH_X rebuilds.
CONFIG_STAMP := $(BUILD)/config.$(HAVE_HWLOC)$(HAVE_IBVERBS)$(HAVE_CUDA)$(HAVE_NCCL)

# A source named *_<dep>.c (topo/node/inv_hwloc.c, bench/p2p/tr_verbs.c, bench/coll/coll_nccl.c) is built
# only when <dep> was found; its registry entry is the one `#if HAVE_X` in the code.
SKIP_SRCS := $(if $(filter yes,$(HAVE_HWLOC)),,%_hwloc.c) $(if $(filter yes,$(HAVE_IBVERBS)),,%_verbs.c) \
             $(if $(filter yes,$(HAVE_CUDA)),,%_cuda.c) $(if $(filter yes,$(HAVE_NCCL)),,%_nccl.c)
SRCS     := $(filter-out $(SKIP_SRCS),$(wildcard bench/*.c bench/*/*.c topo/*/*.c topo/*/*/*.c))
OBJS     := $(SRCS:%.c=$(BUILD)/%.o)
CU_SRCS  := $(if $(filter yes,$(HAVE_CUDA)),$(wildcard kernels/*.cu))
CU_OBJS  := $(CU_SRCS:%.cu=$(BUILD)/%.o)
LIB_OBJS := $(filter-out $(BUILD)/bench/fabprobe.o,$(OBJS)) $(CU_OBJS)

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
# synthetic fabrics with a known tree, for the latency-map tests and scripts/bench-topo.sh
SYNTH     := $(BUILD)/synth-fabric
# the measurement plan at scale, simulated, for scripts/bench-scale.sh
PLAN_SIM  := $(BUILD)/plan-sim

# Fuzz targets (tests/fuzz/fuzz_*.c): libFuzzer binaries built with clang for `make fuzz`, and
# the same targets linked to a plain replay driver (any compiler) that `make check` runs over
# the seed corpus (made from tests/fixtures) and the regression corpus (tests/fuzz/regressions).
FUZZ_SRCS    := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES   := $(FUZZ_SRCS:tests/fuzz/%.c=%)
REPLAY_BINS  := $(FUZZ_NAMES:%=$(BUILD)/tests/replay_%)
FUZZ_SEEDS   := $(BUILD)/fuzz-seeds
FUZZ_SECONDS ?= 60
FUZZ_BUILD   := build-fuzz
FUZZ_CC      := clang
FUZZ_FLAGS   := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
# what the targets exercise: the readers, inference, emitters, the inventory's decoding (no MPI)
FUZZ_LIB     := $(wildcard topo/fabric/*/*.c) $(filter-out %_verbs.c %_hwloc.c,$(wildcard topo/node/*.c)) \
                bench/core/log.c bench/core/csv.c bench/core/escape.c bench/core/natsort.c bench/core/nodename.c bench/core/results.c bench/core/results_in.c bench/core/rjson.c bench/core/jw.c \
                bench/core/opts.c bench/inventory/inv_report.c bench/inventory/inv_print.c
FUZZ_LIB_CPP := -std=c11 -D_GNU_SOURCE -iquote bench -iquote topo -DFP_VERSION='"$(VERSION)"' \
                -DFP_FEATURES='"fuzz"' $(if $(filter yes,$(HAVE_HWLOC)),-DHAVE_HWLOC=1 $(shell pkg-config --cflags hwloc))
FUZZ_LIB_LD  := -lm $(if $(filter yes,$(HAVE_HWLOC)),$(shell pkg-config --libs hwloc))
FUZZ_LIB_SRCS := $(FUZZ_LIB) $(if $(filter yes,$(HAVE_HWLOC)),topo/node/inv_hwloc.c)
# the library compiled once for every target (coverage, no libFuzzer main), each target linked to it
FUZZ_LIB_OBJS := $(FUZZ_LIB_SRCS:%.c=$(FUZZ_BUILD)/obj/%.o)
FUZZ_OBJ_FLAGS := $(subst fuzzer,fuzzer-no-link,$(FUZZ_FLAGS))
# sanitizer runs: reports go to files that tests/run.sh counts; MPI's own leaks are suppressed
SAN_LOG      := $(CURDIR)/build-san/reports
SAN_ENV      := ASAN_OPTIONS=detect_leaks=1:protect_shadow_gap=0:fast_unwind_on_malloc=0:log_path=$(SAN_LOG)/asan \
                LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitize/lsan.supp:print_suppressions=0 \
                UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$(SAN_LOG)/ubsan
SAN_TESTS    := test_topo_offline.sh test_hostile.sh test_quoting.sh

.PHONY: all config check check-san unit synth demo clean deps fabprobe fuzz fuzz-build fuzz-seeds
all: fabprobe

# ./fabprobe points at the binary of the build directory in use, so that switching WITH_X (or
# BUILD) never leaves a binary of the other configuration in place
fabprobe: $(BUILD)/fabprobe
	@ln -sfn $(BUILD)/fabprobe fabprobe

$(BUILD)/fabprobe: $(OBJS) $(CU_OBJS)
	@echo "  LD      $@"
	@$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

$(CONFIG_STAMP):
	@mkdir -p $(BUILD) && rm -f $(BUILD)/config.* && touch $@

$(BUILD)/%.o: %.c $(CONFIG_STAMP)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c -o $@ $<

$(BUILD)/%.o: %.cu $(CONFIG_STAMP)
	@mkdir -p $(dir $@)
	$(CUDA_HOME)/bin/nvcc $(NVCCFLAGS) -Ibench -Ikernels -Xcompiler -Wall,-Wextra,-Werror -MMD -MP -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJS) tests/plan_tree.h
	@mkdir -p $(dir $@)
	@echo "  CCLD    $@"
	@$(CC) $(CPPFLAGS) -Itests/unit $(CFLAGS) $(WARN) -o $@ $< $(LIB_OBJS) $(LDLIBS)

$(PLAN_SIM): tests/plan_sim.c tests/plan_tree.h $(LIB_OBJS)
	@mkdir -p $(dir $@)
	@echo "  CCLD    $@"
	@$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -o $@ $< $(LIB_OBJS) $(LDLIBS)

$(SYNTH): tests/synth_fabric.c
	@mkdir -p $(dir $@)
	@echo "  CCLD    $@"
	@$(CC) -std=c11 -D_GNU_SOURCE $(CFLAGS) $(WARN) -o $@ $< -lm

config:
	@echo "fabprobe $(VERSION) build configuration"
	@echo "  mpicc      $$(command -v $(CC) || echo 'not found (run scripts/install-deps.sh)')"
	@echo "  hwloc      $(HAVE_HWLOC)   (WITH_HWLOC=$(WITH_HWLOC); pkg-config hwloc)"
	@echo "  ibverbs    $(HAVE_IBVERBS)   (WITH_IBVERBS=$(WITH_IBVERBS); pkg-config libibverbs)"
	@echo "  cuda       $(HAVE_CUDA)   (WITH_CUDA=$(WITH_CUDA); CUDA_HOME=$(CUDA_HOME), lib: $(or $(CUDA_LIBDIR),none))"
	@echo "  nccl       $(HAVE_NCCL)   (WITH_NCCL=$(WITH_NCCL); found: $(or $(NCCL_WHERE),nowhere), include: $(or $(NCCL_INCDIR),none), lib: $(or $(NCCL_LIBFILE),none))"
	@echo "  nvcc       $(NVCCFLAGS)"

deps:
	@scripts/install-deps.sh --check 2>/dev/null || scripts/install-deps.sh

unit: $(UNIT_BINS) $(REPLAY_BINS) $(SYNTH) $(PLAN_SIM) fuzz-seeds

synth: $(SYNTH)

$(BUILD)/tests/replay_%: tests/fuzz/%.c tests/fuzz/replay.c tests/fuzz/fuzz.h $(LIB_OBJS)
	@mkdir -p $(dir $@)
	@echo "  CCLD    $@"
	@$(CC) $(CPPFLAGS) -Itests/fuzz -DFUZZ_NAME='"$*"' $(CFLAGS) $(WARN) -o $@ $< tests/fuzz/replay.c $(LIB_OBJS) $(LDLIBS)

# made afresh each time (a fraction of a second), so that it always follows tests/fixtures
fuzz-seeds:
	@tests/fuzz/seeds.sh $(FUZZ_SEEDS)

check: deps
	@$(MAKE) --no-print-directory fabprobe unit
	@FP_FUZZ_SEEDS=$(FUZZ_SEEDS) tests/run.sh $(UNIT_BINS) $(REPLAY_BINS)

# the sanitizer tree's tests; ./fabprobe is left pointing where it was
check-san: deps
	@$(MAKE) --no-print-directory SANITIZE=address,undefined build-san/fabprobe unit
	@rm -rf $(SAN_LOG) && mkdir -p $(SAN_LOG)
	@env $(SAN_ENV) FP_SAN_LOG=$(SAN_LOG) FP_TESTS="$(SAN_TESTS)" FABPROBE=build-san/fabprobe \
		FP_FUZZ_SEEDS=build-san/fuzz-seeds tests/run.sh $(UNIT_BINS:$(BUILD)/%=build-san/%) \
		$(REPLAY_BINS:$(BUILD)/%=build-san/%)

# libFuzzer: each target FUZZ_SECONDS from the seeds and the regression corpus; a crash input
# is written to tests/fuzz/regressions/<target>/ (commit it: make check replays it for ever)
fuzz-build: $(FUZZ_NAMES:%=$(FUZZ_BUILD)/%)

$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  FUZZCC  $@"
	@$(FUZZ_CC) $(FUZZ_LIB_CPP) $(FUZZ_OBJ_FLAGS) $(WARN) -MMD -MP -c -o $@ $<

$(FUZZ_NAMES:%=$(FUZZ_BUILD)/%): $(FUZZ_BUILD)/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(FUZZ_LIB_OBJS)
	@mkdir -p $(dir $@)
	@echo "  FUZZ    $@"
	@$(FUZZ_CC) $(FUZZ_LIB_CPP) -Itests/fuzz $(FUZZ_FLAGS) $(WARN) -o $@ $< $(FUZZ_LIB_OBJS) $(FUZZ_LIB_LD)

fuzz: deps fuzz-build fuzz-seeds
	@tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SEEDS) $(FUZZ_SECONDS) $(FUZZ_NAMES)

demo: deps
	@$(MAKE) --no-print-directory fabprobe
	@scripts/demo.sh

clean:
	rm -rf $(BUILD) build-san $(FUZZ_BUILD) fabprobe

-include $(OBJS:.o=.d) $(CU_OBJS:.o=.d) $(UNIT_BINS:=.d) $(FUZZ_LIB_OBJS:.o=.d)
