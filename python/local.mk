# python: the `animkit` Python module (ctypes over libanimkit), installed
# into the site directory configure found, tested by python/run-tests.sh.
PYTHON_MODULE_FILES = python/animkit/__init__.py python/animkit/_diff.py python/animkit/_errors.py \
	python/animkit/_lib.py python/animkit/_model.py python/animkit/_registry.py
EXTRA_DIST += $(PYTHON_MODULE_FILES) python/tests/test_animkit.py python/run-tests.sh \
	python/installcheck.sh examples/python/convert.py examples/python/replace.py
TESTS += python/run-tests.sh
AM_TESTS_ENVIRONMENT += PYTHON='$(PYTHON)'; export PYTHON;
if SANITIZERS
# An ASan-built library cannot be loaded into an uninstrumented python.
AM_TESTS_ENVIRONMENT += AK_PY_SKIP='the library is built with sanitizers'; export AK_PY_SKIP;
endif

if HAVE_PYTHON
# Installed as plain data (Python compiles on import): the PYTHON primary
# would need build-aux/py-compile, which an existing build tree lacks.
animkitpydir = $(pythondir)/animkit
animkitpy_DATA = $(PYTHON_MODULE_FILES)
# Where the installed module finds the installed library.
nodist_animkitpy_DATA = python/animkit/_paths.py
python/animkit/_paths.py: Makefile
	$(AM_V_GEN)mkdir -p python/animkit && \
	echo '"""Written by make: where libanimkit is installed."""' >$@ && \
	echo 'LIBDIR = "$(libdir)"' >>$@
CLEANFILES += python/animkit/_paths.py
endif
