# plugins/json: animkit's own JSON form (schema 1), read with jansson and
# written by the core's dump. The code is a convenience library so that
# tests and fuzzers link the same objects as the module; entry.c, which
# exports animkit_codec(), goes into the module alone.
noinst_LTLIBRARIES += plugins/json/libjson-impl.la
plugins_json_libjson_impl_la_SOURCES = plugins/json/json.h plugins/json/plugin.c \
	plugins/json/read.c plugins/json/locate.c plugins/json/write.c plugins/json/bound.c
plugins_json_libjson_impl_la_CPPFLAGS = $(AM_CPPFLAGS) $(JANSSON_CFLAGS)
plugins_json_libjson_impl_la_LIBADD = $(JANSSON_LIBS) -lm
plugin_LTLIBRARIES += plugins/json/json.la
plugins_json_json_la_SOURCES = plugins/json/entry.c
plugins_json_json_la_LIBADD = plugins/json/libjson-impl.la libanimkit.la
plugins_json_json_la_LDFLAGS = $(PLUGIN_MODULE_FLAGS)
BUILD_PLUGIN_DIRS += $(abs_top_builddir)/plugins/json/.libs
ALL_PLUGIN_IMPLS += plugins/json/libjson-impl.la

check_PROGRAMS += tests/json/test_json
TESTS += tests/json/test_json
tests_json_test_json_SOURCES = tests/json/test_json.c
tests_json_test_json_CFLAGS = $(TEST_CFLAGS) $(JANSSON_CFLAGS)
tests_json_test_json_LDADD = plugins/json/libjson-impl.la plugins/ifp/libifp-impl.la \
	plugins/ani/libani-impl.la plugins/anm/libanm-impl.la plugins/mab/libmab-impl.la $(TEST_LIBS) $(JANSSON_LIBS) -lm

# jansson's tree against the read's memory limit (bound.c).
check_PROGRAMS += tests/json/test_json_bound
TESTS += tests/json/test_json_bound
tests_json_test_json_bound_SOURCES = tests/json/test_json_bound.c
tests_json_test_json_bound_CFLAGS = $(TEST_CFLAGS) $(JANSSON_CFLAGS)
tests_json_test_json_bound_LDADD = plugins/json/libjson-impl.la $(TEST_LIBS) $(JANSSON_LIBS) -lm
