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
TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) -I$(top_srcdir)/tests
