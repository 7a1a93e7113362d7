# tests/robustness: fault injection (allocation failures at every site,
# failing file operations), the memory cap of reads, and regression inputs
# found by the fuzzers (fuzz/). Every format plugin whose impl library is in
# ALL_PLUGIN_IMPLS is linked in and exercised; AK_HAVE_NAME tells the code.
ROBUST_PLUGIN_DEFS = \
	$(if $(findstring plugins/ifp/libifp-impl.la,$(ALL_PLUGIN_IMPLS)),-DAK_HAVE_IFP) \
	$(if $(findstring plugins/ani/libani-impl.la,$(ALL_PLUGIN_IMPLS)),-DAK_HAVE_ANI) \
	$(if $(findstring plugins/anm/libanm-impl.la,$(ALL_PLUGIN_IMPLS)),-DAK_HAVE_ANM) \
	$(if $(findstring plugins/mab/libmab-impl.la,$(ALL_PLUGIN_IMPLS)),-DAK_HAVE_MAB) \
	$(if $(findstring plugins/json/libjson-impl.la,$(ALL_PLUGIN_IMPLS)),-DAK_HAVE_JSON) \
	$(if $(findstring plugins/bvh/libbvh-impl.la,$(ALL_PLUGIN_IMPLS)),-DAK_HAVE_BVH) \
	$(if $(findstring plugins/dff/libdff-impl.la,$(ALL_PLUGIN_IMPLS)),-DAK_HAVE_DFF) \
	$(if $(findstring plugins/gltf/libgltf-impl.la,$(ALL_PLUGIN_IMPLS)),-DAK_HAVE_GLTF)
ROBUST_CFLAGS = $(TEST_CFLAGS) $(ROBUST_PLUGIN_DEFS) $(JANSSON_CFLAGS)
ROBUST_LIBS = $(ALL_PLUGIN_IMPLS) $(TEST_LIBS)
ROBUST_COMMON = tests/robustness/robust.c tests/robustness/robust.h

check_PROGRAMS += tests/robustness/test_alloc_faults tests/robustness/test_file_faults \
	tests/robustness/test_limits tests/robustness/test_regressions
TESTS += tests/robustness/test_alloc_faults tests/robustness/test_file_faults \
	tests/robustness/test_limits tests/robustness/test_regressions

tests_robustness_test_alloc_faults_SOURCES = tests/robustness/test_alloc_faults.c $(ROBUST_COMMON)
tests_robustness_test_alloc_faults_CFLAGS = $(ROBUST_CFLAGS)
tests_robustness_test_alloc_faults_LDADD = $(ALL_PLUGIN_IMPLS) $(TEST_INTERNAL_LIBS)

tests_robustness_test_file_faults_SOURCES = tests/robustness/test_file_faults.c $(ROBUST_COMMON)
tests_robustness_test_file_faults_CFLAGS = $(ROBUST_CFLAGS)
tests_robustness_test_file_faults_LDADD = $(ALL_PLUGIN_IMPLS) $(TEST_INTERNAL_LIBS)

tests_robustness_test_limits_SOURCES = tests/robustness/test_limits.c $(ROBUST_COMMON)
tests_robustness_test_limits_CFLAGS = $(ROBUST_CFLAGS)
tests_robustness_test_limits_LDADD = $(ROBUST_LIBS)

# Time sweeps asserting linear growth (ratios, not absolute times).
check_PROGRAMS += tests/robustness/test_linear
TESTS += tests/robustness/test_linear
tests_robustness_test_linear_SOURCES = tests/robustness/test_linear.c
tests_robustness_test_linear_CFLAGS = $(TEST_CFLAGS)
tests_robustness_test_linear_LDADD = $(TEST_LIBS)

tests_robustness_test_regressions_SOURCES = tests/robustness/test_regressions.c $(ROBUST_COMMON)
tests_robustness_test_regressions_CFLAGS = $(ROBUST_CFLAGS)
tests_robustness_test_regressions_LDADD = $(ROBUST_LIBS)

EXTRA_DIST += tests/robustness/crashes fuzz

# The CLI under valgrind's memcheck over the samples and corpus: no read of
# unwritten memory. Not under the sanitizers (valgrind cannot run them).
TESTS += tests/robustness/memcheck.sh
EXTRA_DIST += tests/robustness/memcheck.sh
if SANITIZERS
AM_TESTS_ENVIRONMENT += AK_MEMCHECK_SKIP='the build uses the sanitizers, which valgrind cannot run'; export AK_MEMCHECK_SKIP;
endif
