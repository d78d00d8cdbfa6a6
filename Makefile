# fabprobe — one plain Makefile.
#   make            build ./fabprobe
#   make check      build and run every test (unit + integration), ends with "N passed, N failed, N skipped"
#   make config     print the optional dependencies that were detected
#   make demo       run fabprobe across the emulated cluster (root) or locally
# Optional dependencies: WITH_HWLOC, WITH_IBVERBS, WITH_CUDA, WITH_NCCL = auto | yes | no.

VERSION      := 0.1.0
CC           := mpicc
CFLAGS       ?= -O2 -g
WARN         := -Wall -Wextra -Werror
CPPFLAGS     += -std=c11 -D_GNU_SOURCE -iquote bench -iquote topo -iquote kernels -DFP_VERSION='"$(VERSION)"' \
                -DFP_FEATURES='"hwloc=$(HAVE_HWLOC) ibverbs=$(HAVE_IBVERBS) cuda=$(HAVE_CUDA) nccl=$(HAVE_NCCL)"'
LDLIBS       += -lm
BUILD        := build

WITH_HWLOC   ?= auto
WITH_IBVERBS ?= auto
WITH_CUDA    ?= auto
WITH_NCCL    ?= auto
CUDA_HOME    ?= /usr/local/cuda
NVCCFLAGS    ?= -O2
NCCL_HOME    ?= $(CUDA_HOME)

# resolve(NAME, WITH_X value, found?) -> yes/no; "yes" with nothing found is an error
define resolve
$(if $(filter no,$(2)),no,$(if $(3),yes,$(if $(filter yes,$(2)),$(error WITH_$(1)=yes but $(1) was not found),no)))
endef
libdir = $(firstword $(foreach d,lib64 lib,$(if $(wildcard $(1)/$(d)/$(2)),$(1)/$(d))))

HAVE_HWLOC   := $(call resolve,HWLOC,$(WITH_HWLOC),$(shell pkg-config --exists hwloc 2>/dev/null && echo y))
HAVE_IBVERBS := $(call resolve,IBVERBS,$(WITH_IBVERBS),$(shell pkg-config --exists libibverbs 2>/dev/null && echo y))
CUDA_LIBDIR  := $(call libdir,$(CUDA_HOME),libcudart.so)
HAVE_CUDA    := $(call resolve,CUDA,$(WITH_CUDA),$(and $(wildcard $(CUDA_HOME)/bin/nvcc),$(CUDA_LIBDIR)))
NCCL_LIBDIR  := $(call libdir,$(NCCL_HOME),libnccl.so)
HAVE_NCCL    := $(call resolve,NCCL,$(WITH_NCCL),$(and $(filter yes,$(HAVE_CUDA)),$(wildcard $(NCCL_HOME)/include/nccl.h),$(NCCL_LIBDIR)))

ifeq ($(HAVE_HWLOC),yes)
  CPPFLAGS += -DHAVE_HWLOC=1 $(shell pkg-config --cflags hwloc)
  LDLIBS   += $(shell pkg-config --libs hwloc)
endif
ifeq ($(HAVE_IBVERBS),yes)
  CPPFLAGS += -DHAVE_IBVERBS=1 $(shell pkg-config --cflags libibverbs)
  LDLIBS   += $(shell pkg-config --libs libibverbs)
endif
ifeq ($(HAVE_CUDA),yes)
  CPPFLAGS += -DHAVE_CUDA=1 -I$(CUDA_HOME)/include
  LDLIBS   += -L$(CUDA_LIBDIR) -Wl,-rpath,$(CUDA_LIBDIR) -lcudart -lstdc++  # nvcc objects need the C++ runtime
endif
ifeq ($(HAVE_NCCL),yes)
  CPPFLAGS += -DHAVE_NCCL=1 -I$(NCCL_HOME)/include
  LDLIBS   += -L$(NCCL_LIBDIR) -Wl,-rpath,$(NCCL_LIBDIR) -lnccl
endif

# The build configuration is part of every object's inputs: switching WITH_X rebuilds.
CONFIG_STAMP := $(BUILD)/config.$(HAVE_HWLOC)$(HAVE_IBVERBS)$(HAVE_CUDA)$(HAVE_NCCL)

# A source named *_<dep>.c (topo/inv_hwloc.c, bench/tr_verbs.c, bench/coll_nccl.c) is built
# only when <dep> was found; its registry entry is the one `#if HAVE_X` in the code.
SKIP_SRCS := $(if $(filter yes,$(HAVE_HWLOC)),,%_hwloc.c) $(if $(filter yes,$(HAVE_IBVERBS)),,%_verbs.c) \
             $(if $(filter yes,$(HAVE_CUDA)),,%_cuda.c) $(if $(filter yes,$(HAVE_NCCL)),,%_nccl.c)
SRCS     := $(filter-out $(SKIP_SRCS),$(wildcard bench/*.c topo/*.c))
OBJS     := $(SRCS:%.c=$(BUILD)/%.o)
CU_SRCS  := $(if $(filter yes,$(HAVE_CUDA)),$(wildcard kernels/*.cu))
CU_OBJS  := $(CU_SRCS:%.cu=$(BUILD)/%.o)
LIB_OBJS := $(filter-out $(BUILD)/bench/fabprobe.o,$(OBJS)) $(CU_OBJS)

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
# synthetic fabrics with a known tree, for the latency-map tests and scripts/bench-topo.sh
SYNTH     := $(BUILD)/synth-fabric

.PHONY: all config check unit synth demo clean deps fabprobe
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
	$(CUDA_HOME)/bin/nvcc $(NVCCFLAGS) -Ibench -Ikernels -Xcompiler -Wall,-Wextra,-Werror -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	@echo "  CCLD    $@"
	@$(CC) $(CPPFLAGS) -Itests/unit $(CFLAGS) $(WARN) -o $@ $< $(LIB_OBJS) $(LDLIBS)

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
	@echo "  nccl       $(HAVE_NCCL)   (WITH_NCCL=$(WITH_NCCL); NCCL_HOME=$(NCCL_HOME), lib: $(or $(NCCL_LIBDIR),none))"

deps:
	@scripts/install-deps.sh --check 2>/dev/null || scripts/install-deps.sh

unit: $(UNIT_BINS) $(SYNTH)

synth: $(SYNTH)

check: deps
	@$(MAKE) --no-print-directory fabprobe unit
	@tests/run.sh $(UNIT_BINS)

demo: deps
	@$(MAKE) --no-print-directory fabprobe
	@scripts/demo.sh

clean:
	rm -rf $(BUILD) fabprobe

-include $(OBJS:.o=.d) $(UNIT_BINS:=.d)
