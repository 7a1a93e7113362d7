# plugins/bvh: Biovision Hierarchy motion capture (.bvh), text, built on the
# core's text reader and number helpers. The code is a convenience library
# so that tests and fuzzers link the same objects as the module; entry.c,
# which exports animkit_codec(), goes into the module alone.
noinst_LTLIBRARIES += plugins/bvh/libbvh-impl.la
plugins_bvh_libbvh_impl_la_SOURCES = plugins/bvh/bvh.h plugins/bvh/plugin.c \
	plugins/bvh/euler.c plugins/bvh/read.c plugins/bvh/write.c
plugins_bvh_libbvh_impl_la_LIBADD = -lm
plugin_LTLIBRARIES += plugins/bvh/bvh.la
plugins_bvh_bvh_la_SOURCES = plugins/bvh/entry.c
plugins_bvh_bvh_la_LIBADD = plugins/bvh/libbvh-impl.la libanimkit.la
plugins_bvh_bvh_la_LDFLAGS = $(PLUGIN_MODULE_FLAGS)
BUILD_PLUGIN_DIRS += $(abs_top_builddir)/plugins/bvh/.libs
ALL_PLUGIN_IMPLS += plugins/bvh/libbvh-impl.la

check_PROGRAMS += tests/bvh/test_bvh
TESTS += tests/bvh/test_bvh
tests_bvh_test_bvh_SOURCES = tests/bvh/test_bvh.c
tests_bvh_test_bvh_CFLAGS = $(TEST_CFLAGS)
tests_bvh_test_bvh_LDADD = plugins/bvh/libbvh-impl.la plugins/ifp/libifp-impl.la $(TEST_LIBS) -lm
