# plugins/ifp: GTA animation packages (.ifp). The code is a convenience
# library so that tests and fuzzers link the same objects as the module;
# entry.c, which exports animkit_codec(), goes into the module alone.
noinst_LTLIBRARIES += plugins/ifp/libifp-impl.la
plugins_ifp_libifp_impl_la_SOURCES = plugins/ifp/ifp.h plugins/ifp/plugin.c \
	plugins/ifp/common.c plugins/ifp/read.c plugins/ifp/write.c
plugin_LTLIBRARIES += plugins/ifp/ifp.la
plugins_ifp_ifp_la_SOURCES = plugins/ifp/entry.c
plugins_ifp_ifp_la_LIBADD = plugins/ifp/libifp-impl.la libanimkit.la
plugins_ifp_ifp_la_LDFLAGS = $(PLUGIN_MODULE_FLAGS)
BUILD_PLUGIN_DIRS += $(abs_top_builddir)/plugins/ifp/.libs
ALL_PLUGIN_IMPLS += plugins/ifp/libifp-impl.la

check_PROGRAMS += tests/ifp/test_ifp
TESTS += tests/ifp/test_ifp
tests_ifp_test_ifp_SOURCES = tests/ifp/test_ifp.c
tests_ifp_test_ifp_CFLAGS = $(TEST_CFLAGS)
tests_ifp_test_ifp_LDADD = plugins/ifp/libifp-impl.la $(TEST_LIBS)

check_PROGRAMS += tests/ifp/test_ifp_tail
TESTS += tests/ifp/test_ifp_tail
tests_ifp_test_ifp_tail_SOURCES = tests/ifp/test_ifp_tail.c
tests_ifp_test_ifp_tail_CFLAGS = $(TEST_CFLAGS)
tests_ifp_test_ifp_tail_LDADD = plugins/ifp/libifp-impl.la $(TEST_LIBS)
