# plugins/dff: the skeleton of GTA RenderWare models (.dff), read-only. The
# code is a convenience library so that tests and fuzzers link the same
# objects as the module; entry.c, which exports animkit_codec(), goes into
# the module alone.
noinst_LTLIBRARIES += plugins/dff/libdff-impl.la
plugins_dff_libdff_impl_la_SOURCES = plugins/dff/dff.h plugins/dff/plugin.c \
	plugins/dff/read.c plugins/dff/rotation.c
plugin_LTLIBRARIES += plugins/dff/dff.la
plugins_dff_dff_la_SOURCES = plugins/dff/entry.c
plugins_dff_dff_la_LIBADD = plugins/dff/libdff-impl.la libanimkit.la
plugins_dff_dff_la_LDFLAGS = $(PLUGIN_MODULE_FLAGS)
BUILD_PLUGIN_DIRS += $(abs_top_builddir)/plugins/dff/.libs
ALL_PLUGIN_IMPLS += plugins/dff/libdff-impl.la

check_PROGRAMS += tests/dff/test_dff
TESTS += tests/dff/test_dff
tests_dff_test_dff_SOURCES = tests/dff/test_dff.c
tests_dff_test_dff_CFLAGS = $(TEST_CFLAGS)
tests_dff_test_dff_LDADD = plugins/dff/libdff-impl.la plugins/ifp/libifp-impl.la $(TEST_LIBS)
