# plugins/anm: GEM engine animations (.anm, EANM 4.0/6.0/6.1). The code is a convenience
# library so that tests and fuzzers link the same objects as the module;
# entry.c, which exports animkit_codec(), goes into the module alone.
noinst_LTLIBRARIES += plugins/anm/libanm-impl.la
plugins_anm_libanm_impl_la_SOURCES = plugins/anm/plugin.c plugins/anm/read.c \
	plugins/anm/write.c plugins/anm/quat.c plugins/anm/anm.h
# The plugin never reads errno: sqrt becomes one instruction instead of a
# library call per rotation key (the values are the same).
plugins_anm_libanm_impl_la_CFLAGS = $(AM_CFLAGS) -fno-math-errno
plugin_LTLIBRARIES += plugins/anm/anm.la
plugins_anm_anm_la_SOURCES = plugins/anm/entry.c
plugins_anm_anm_la_LIBADD = plugins/anm/libanm-impl.la libanimkit.la
plugins_anm_anm_la_LDFLAGS = $(PLUGIN_MODULE_FLAGS)
BUILD_PLUGIN_DIRS += $(abs_top_builddir)/plugins/anm/.libs
ALL_PLUGIN_IMPLS += plugins/anm/libanm-impl.la

check_PROGRAMS += tests/anm/test_anm
TESTS += tests/anm/test_anm
tests_anm_test_anm_SOURCES = tests/anm/test_anm.c
tests_anm_test_anm_CFLAGS = $(TEST_CFLAGS)
tests_anm_test_anm_LDADD = plugins/anm/libanm-impl.la $(TEST_LIBS)
