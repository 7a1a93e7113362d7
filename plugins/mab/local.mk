# plugins/mab: Dunia / Disrupt skeletal animations (.mab). The code is a
# convenience library so that tests and fuzzers link the same objects as the
# module; entry.c, which exports animkit_codec(), goes into the module alone.
noinst_LTLIBRARIES += plugins/mab/libmab-impl.la
plugins_mab_libmab_impl_la_SOURCES = plugins/mab/mab.h plugins/mab/plugin.c \
	plugins/mab/bits.c plugins/mab/read.c plugins/mab/read_d.c plugins/mab/read_s.c
plugins_mab_libmab_impl_la_LIBADD = -lm
plugin_LTLIBRARIES += plugins/mab/mab.la
plugins_mab_mab_la_SOURCES = plugins/mab/entry.c
plugins_mab_mab_la_LIBADD = plugins/mab/libmab-impl.la libanimkit.la
plugins_mab_mab_la_LDFLAGS = $(PLUGIN_MODULE_FLAGS)
BUILD_PLUGIN_DIRS += $(abs_top_builddir)/plugins/mab/.libs
ALL_PLUGIN_IMPLS += plugins/mab/libmab-impl.la

check_PROGRAMS += tests/mab/test_mab
TESTS += tests/mab/test_mab
tests_mab_test_mab_SOURCES = tests/mab/test_mab.c tests/mab/mab_fixture.c tests/mab/mab_fixture.h
tests_mab_test_mab_CFLAGS = $(TEST_CFLAGS)
tests_mab_test_mab_LDADD = plugins/mab/libmab-impl.la $(TEST_LIBS) -lm
