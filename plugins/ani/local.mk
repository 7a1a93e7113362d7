# plugins/ani: io3DEngine (Lost Saga) animations (.ani). The code is a
# convenience library so that tests and fuzzers link the same objects as the
# module; entry.c, which exports animkit_codec(), goes into the module alone.
noinst_LTLIBRARIES += plugins/ani/libani-impl.la
plugins_ani_libani_impl_la_SOURCES = plugins/ani/ani.h plugins/ani/plugin.c \
	plugins/ani/quat.c plugins/ani/read.c plugins/ani/write.c
plugin_LTLIBRARIES += plugins/ani/ani.la
plugins_ani_ani_la_SOURCES = plugins/ani/entry.c
plugins_ani_ani_la_LIBADD = plugins/ani/libani-impl.la libanimkit.la
plugins_ani_ani_la_LDFLAGS = $(PLUGIN_MODULE_FLAGS)
BUILD_PLUGIN_DIRS += $(abs_top_builddir)/plugins/ani/.libs
ALL_PLUGIN_IMPLS += plugins/ani/libani-impl.la

check_PROGRAMS += tests/ani/test_ani
TESTS += tests/ani/test_ani
tests_ani_test_ani_SOURCES = tests/ani/test_ani.c
tests_ani_test_ani_CFLAGS = $(TEST_CFLAGS)
tests_ani_test_ani_LDADD = plugins/ani/libani-impl.la $(TEST_LIBS)
