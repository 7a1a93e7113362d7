# tests: Check programs. Plugin tests live in tests/NAME/ and are listed in
# plugins/NAME/local.mk; the core's are here.
AM_TESTS_ENVIRONMENT = \
	AK_CORPUS='$(CORPUS_DIR)'; export AK_CORPUS; \
	AK_SRCDIR='$(abs_top_srcdir)'; export AK_SRCDIR; \
	AK_BUILDDIR='$(abs_top_builddir)'; export AK_BUILDDIR; \
	CK_DEFAULT_TIMEOUT=600; export CK_DEFAULT_TIMEOUT;

check_LTLIBRARIES += tests/libtestutil.la
tests_libtestutil_la_SOURCES = tests/testutil.c tests/testutil.h
tests_libtestutil_la_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
# Test programs link this; -rpath-less convenience library.
TEST_LIBS = tests/libtestutil.la libanimkit.la $(CHECK_LIBS)
# The unit tests of functions inside the core (core/internal.h), which
# libanimkit.so does not export, link the core's own objects instead. None
# of them loads a plugin, which would bring libanimkit.so in beside them.
TEST_INTERNAL_LIBS = tests/libtestutil.la libanimkit-core.la $(CHECK_LIBS)
# Test paths come from mkdtemp and are short; truncation warnings there are noise.
TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) -I$(top_srcdir)/tests $(NO_TRUNCATION_WARNING)

# Plugins for the registry tests: the example plugin and deliberately broken
# ones. -rpath makes libtool build real shared objects.
TEST_PLUGIN_FLAGS = $(AM_LDFLAGS) -module -avoid-version -shared -rpath /nowhere
check_LTLIBRARIES += tests/plugins/akm.la tests/plugins/badabi.la tests/plugins/newminor.la \
	tests/plugins/nosym.la tests/plugins/small.la tests/plugins/dupname.la tests/plugins/rival.la \
	tests/plugins/oldminor.la tests/plugins/minor11.la tests/plugins/minor12.la tests/plugins/minor13.la tests/plugins/minor14.la tests/plugins/minor15.la tests/plugins/minor16.la tests/plugins/hidden.la tests/plugins/mangled.la \
	tests/plugins/hiddenok.la
tests_plugins_akm_la_SOURCES = examples/plugin/akm.c
tests_plugins_akm_la_LDFLAGS = $(TEST_PLUGIN_FLAGS)
tests_plugins_akm_la_LIBADD = libanimkit.la
# README's walkthrough plugin, compiled here with the project's warnings too
# (in its own folder: tests/plugins is autoloaded by the registry tests).
check_LTLIBRARIES += tests/walkthrough/txa.la
tests_walkthrough_txa_la_SOURCES = examples/plugin/txa.c
tests_walkthrough_txa_la_LDFLAGS = $(TEST_PLUGIN_FLAGS)
tests_walkthrough_txa_la_LIBADD = libanimkit.la
tests_plugins_badabi_la_SOURCES = tests/plugins/badabi.c
tests_plugins_badabi_la_LDFLAGS = $(TEST_PLUGIN_FLAGS)
tests_plugins_badabi_la_LIBADD = libanimkit.la
tests_plugins_newminor_la_SOURCES = tests/plugins/newminor.c
tests_plugins_newminor_la_LDFLAGS = $(TEST_PLUGIN_FLAGS)
tests_plugins_newminor_la_LIBADD = libanimkit.la
tests_plugins_nosym_la_SOURCES = tests/plugins/nosym.c
tests_plugins_nosym_la_LDFLAGS = $(TEST_PLUGIN_FLAGS)
tests_plugins_small_la_SOURCES = tests/plugins/small.c
tests_plugins_small_la_LDFLAGS = $(TEST_PLUGIN_FLAGS)
tests_plugins_dupname_la_SOURCES = tests/plugins/dupname.c
tests_plugins_dupname_la_LDFLAGS = $(TEST_PLUGIN_FLAGS)
tests_plugins_dupname_la_LIBADD = libanimkit.la
tests_plugins_rival_la_SOURCES = tests/plugins/rival.c
tests_plugins_rival_la_LDFLAGS = $(TEST_PLUGIN_FLAGS)
tests_plugins_rival_la_LIBADD = libanimkit.la
tests_plugins_oldminor_la_SOURCES = tests/plugins/oldminor.c
tests_plugins_oldminor_la_LDFLAGS = $(TEST_PLUGIN_FLAGS)
tests_plugins_oldminor_la_LIBADD = libanimkit.la
tests_plugins_minor11_la_SOURCES = tests/plugins/minor11.c
tests_plugins_minor11_la_LDFLAGS = $(TEST_PLUGIN_FLAGS)
tests_plugins_minor11_la_LIBADD = libanimkit.la
tests_plugins_minor12_la_SOURCES = tests/plugins/minor12.c
tests_plugins_minor12_la_LDFLAGS = $(TEST_PLUGIN_FLAGS)
tests_plugins_minor12_la_LIBADD = libanimkit.la
tests_plugins_minor13_la_SOURCES = tests/plugins/minor13.c
tests_plugins_minor13_la_LDFLAGS = $(TEST_PLUGIN_FLAGS)
tests_plugins_minor13_la_LIBADD = libanimkit.la
tests_plugins_minor14_la_SOURCES = tests/plugins/minor14.c
tests_plugins_minor14_la_LDFLAGS = $(TEST_PLUGIN_FLAGS)
tests_plugins_minor14_la_LIBADD = libanimkit.la
tests_plugins_minor15_la_SOURCES = tests/plugins/minor15.c
tests_plugins_minor15_la_LDFLAGS = $(TEST_PLUGIN_FLAGS)
tests_plugins_minor15_la_LIBADD = libanimkit.la
tests_plugins_minor16_la_SOURCES = tests/plugins/minor16.c
tests_plugins_minor16_la_LDFLAGS = $(TEST_PLUGIN_FLAGS)
tests_plugins_minor16_la_LIBADD = libanimkit.la
# The entry's visibility and name, with and without AK_PLUGIN_ENTRY.
tests_plugins_hidden_la_SOURCES = tests/plugins/hidden.c
tests_plugins_hidden_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
tests_plugins_hidden_la_LDFLAGS = $(TEST_PLUGIN_FLAGS)
tests_plugins_mangled_la_SOURCES = tests/plugins/mangled.c
tests_plugins_mangled_la_LDFLAGS = $(TEST_PLUGIN_FLAGS)
tests_plugins_hiddenok_la_SOURCES = tests/plugins/hiddenok.c
tests_plugins_hiddenok_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
tests_plugins_hiddenok_la_LDFLAGS = $(TEST_PLUGIN_FLAGS)
tests_plugins_hiddenok_la_LIBADD = libanimkit.la

CORE_TESTS = tests/core/test_pool tests/core/test_model tests/core/test_binio tests/core/test_registry \
	tests/core/test_config tests/core/test_fileio tests/core/test_cli tests/core/test_threads \
	tests/core/test_dtoa tests/core/test_params tests/core/test_text tests/core/test_locale \
	tests/core/test_trust tests/core/test_plugin_load tests/core/test_hostsafety tests/core/test_cli_output \
	tests/core/test_config_limits \
	tests/core/test_quat tests/core/test_elfscan
check_PROGRAMS += $(CORE_TESTS)
TESTS += $(CORE_TESTS)
TESTS += tests/core/exports.sh
EXTRA_DIST += tests/core/exports.sh
tests_core_test_model_SOURCES = tests/core/test_model.c
tests_core_test_model_CFLAGS = $(TEST_CFLAGS)
tests_core_test_model_LDADD = $(TEST_INTERNAL_LIBS)
tests_core_test_pool_SOURCES = tests/core/test_pool.c
tests_core_test_pool_CFLAGS = $(TEST_CFLAGS)
tests_core_test_pool_LDADD = $(TEST_LIBS)
tests_core_test_quat_SOURCES = tests/core/test_quat.c
tests_core_test_quat_CFLAGS = $(TEST_CFLAGS)
tests_core_test_quat_LDADD = $(TEST_LIBS)
tests_core_test_dtoa_SOURCES = tests/core/test_dtoa.c
tests_core_test_dtoa_CFLAGS = $(TEST_CFLAGS) -I$(top_srcdir)/core
tests_core_test_dtoa_LDADD = $(TEST_INTERNAL_LIBS)
tests_core_test_binio_SOURCES = tests/core/test_binio.c
tests_core_test_binio_CFLAGS = $(TEST_CFLAGS)
tests_core_test_binio_LDADD = $(TEST_LIBS)
tests_core_test_registry_SOURCES = tests/core/test_registry.c examples/plugin/akm.c
tests_core_test_registry_CFLAGS = $(TEST_CFLAGS)
tests_core_test_registry_LDADD = $(TEST_LIBS)
tests_core_test_config_SOURCES = tests/core/test_config.c
tests_core_test_config_CFLAGS = $(TEST_CFLAGS)
tests_core_test_config_LDADD = $(TEST_LIBS)
tests_core_test_fileio_SOURCES = tests/core/test_fileio.c
tests_core_test_fileio_CFLAGS = $(TEST_CFLAGS) -I$(top_srcdir)/core
tests_core_test_fileio_LDADD = $(TEST_INTERNAL_LIBS)
tests_core_test_cli_SOURCES = tests/core/test_cli.c
tests_core_test_cli_CFLAGS = $(TEST_CFLAGS)
tests_core_test_cli_LDADD = $(TEST_LIBS)
tests_core_test_trust_SOURCES = tests/core/test_trust.c
tests_core_test_trust_CFLAGS = $(TEST_CFLAGS)
tests_core_test_trust_LDADD = $(TEST_LIBS)
tests_core_test_hostsafety_SOURCES = tests/core/test_hostsafety.c
tests_core_test_hostsafety_CFLAGS = $(TEST_CFLAGS) -I$(top_srcdir)/core -pthread
tests_core_test_hostsafety_LDADD = $(TEST_INTERNAL_LIBS) -lpthread
tests_core_test_cli_output_SOURCES = tests/core/test_cli_output.c
tests_core_test_cli_output_CFLAGS = $(TEST_CFLAGS)
tests_core_test_cli_output_LDADD = $(TEST_LIBS)
tests_core_test_config_limits_SOURCES = tests/core/test_config_limits.c
tests_core_test_config_limits_CFLAGS = $(TEST_CFLAGS)
tests_core_test_config_limits_LDADD = $(TEST_LIBS)
tests_core_test_elfscan_SOURCES = tests/core/test_elfscan.c
tests_core_test_elfscan_CFLAGS = $(TEST_CFLAGS)
tests_core_test_elfscan_LDADD = $(TEST_INTERNAL_LIBS)
tests_core_test_plugin_load_SOURCES = tests/core/test_plugin_load.c
tests_core_test_plugin_load_CFLAGS = $(TEST_CFLAGS)
tests_core_test_plugin_load_LDADD = $(TEST_LIBS)
tests_core_test_threads_SOURCES = tests/core/test_threads.c examples/plugin/akm.c
tests_core_test_threads_CFLAGS = $(TEST_CFLAGS)
tests_core_test_threads_LDADD = $(TEST_LIBS)
tests_core_test_params_SOURCES = tests/core/test_params.c
tests_core_test_params_CFLAGS = $(TEST_CFLAGS)
tests_core_test_params_LDADD = $(TEST_LIBS)
tests_core_test_text_SOURCES = tests/core/test_text.c
tests_core_test_text_CFLAGS = $(TEST_CFLAGS)
tests_core_test_text_LDADD = $(TEST_LIBS) -lm
tests_core_test_locale_SOURCES = tests/core/test_locale.c
tests_core_test_locale_CFLAGS = $(TEST_CFLAGS)
tests_core_test_locale_LDADD = plugins/anm/libanm-impl.la plugins/json/libjson-impl.la $(TEST_LIBS) $(JANSSON_LIBS) -lm

# Editing and batch work (issue 14): the editing API on ANP3 byte ranges,
# retime and diff; the CLI's batch mode over the corpus and many files.
check_PROGRAMS += tests/core/test_edit tests/core/test_batch
TESTS += tests/core/test_edit tests/core/test_batch
tests_core_test_edit_SOURCES = tests/core/test_edit.c
tests_core_test_edit_CFLAGS = $(TEST_CFLAGS)
tests_core_test_edit_LDADD = plugins/ifp/libifp-impl.la $(TEST_LIBS) -lm
tests_core_test_batch_SOURCES = tests/core/test_batch.c
tests_core_test_batch_CFLAGS = $(TEST_CFLAGS) $(JANSSON_CFLAGS)
tests_core_test_batch_LDADD = $(TEST_LIBS) $(JANSSON_LIBS) -lutil

# Folders the tests make for configs and plugins (see ak_test_tmpdir).
clean-local: clean-test-tmp
clean-test-tmp:
	-rm -rf tests/tmp
.PHONY: clean-test-tmp
