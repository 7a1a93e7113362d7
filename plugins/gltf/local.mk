# plugins/gltf: glTF 2.0 (.glb, .gltf), read and written with jansson. The
# code is a convenience library so that tests and fuzzers link the same
# objects as the module; entry.c, which exports animkit_codec(), goes into
# the module alone.
noinst_LTLIBRARIES += plugins/gltf/libgltf-impl.la
plugins_gltf_libgltf_impl_la_SOURCES = plugins/gltf/gltf.h plugins/gltf/build.h plugins/gltf/plugin.c \
	plugins/gltf/common.c plugins/gltf/props.c plugins/gltf/write.c plugins/gltf/anim.c \
	plugins/gltf/parse.h plugins/gltf/read.c plugins/gltf/nodes.c plugins/gltf/clips.c \
	plugins/gltf/accessor.c
plugins_gltf_libgltf_impl_la_CPPFLAGS = $(AM_CPPFLAGS) $(JANSSON_CFLAGS)
plugins_gltf_libgltf_impl_la_LIBADD = $(JANSSON_LIBS) -lm
plugin_LTLIBRARIES += plugins/gltf/gltf.la
plugins_gltf_gltf_la_SOURCES = plugins/gltf/entry.c
plugins_gltf_gltf_la_LIBADD = plugins/gltf/libgltf-impl.la libanimkit.la
plugins_gltf_gltf_la_LDFLAGS = $(PLUGIN_MODULE_FLAGS)
BUILD_PLUGIN_DIRS += $(abs_top_builddir)/plugins/gltf/.libs
ALL_PLUGIN_IMPLS += plugins/gltf/libgltf-impl.la

# The Khronos validator and three.js (npm packages under $AK_NODE_PREFIX;
# skipped outside CI when absent) and the Check tests.
TESTS += tests/gltf/validate.sh
EXTRA_DIST += plugins/gltf/README.md tests/gltf/node-env.sh tests/gltf/validate.sh tests/gltf/validate.mjs
TESTS += tests/gltf/three.sh
EXTRA_DIST += tests/gltf/three.sh tests/gltf/three.mjs
check_PROGRAMS += tests/gltf/gltf-fixture
tests_gltf_gltf_fixture_SOURCES = tests/gltf/fixture.c tests/gltf/handmade.c tests/gltf/handmade.h
tests_gltf_gltf_fixture_CFLAGS = $(AM_CFLAGS) $(JANSSON_CFLAGS)
tests_gltf_gltf_fixture_LDADD = $(ALL_PLUGIN_IMPLS) libanimkit.la $(JANSSON_LIBS) -lm
check_PROGRAMS += tests/gltf/test_gltf
TESTS += tests/gltf/test_gltf
tests_gltf_test_gltf_SOURCES = tests/gltf/test_gltf.c tests/gltf/handmade.c tests/gltf/handmade.h
tests_gltf_test_gltf_CFLAGS = $(TEST_CFLAGS) $(JANSSON_CFLAGS)
tests_gltf_test_gltf_LDADD = plugins/gltf/libgltf-impl.la plugins/ifp/libifp-impl.la $(TEST_LIBS) $(JANSSON_LIBS) -lm
TESTS += tests/gltf/blender.sh
EXTRA_DIST += tests/gltf/blender.sh tests/gltf/blender.py
