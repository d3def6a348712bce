"""Build script: the optional compiled search core (``p2ptrumps/ai/_core.c``).

Everything else is in ``pyproject.toml``.  The extension is optional: without a
C compiler (or Python headers) ``pip install .`` still succeeds and the AI uses
the pure-Python core (``p2ptrumps/ai/core.py``), which gives the same moves,
only slower.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "p2ptrumps.ai._core",
            sources=["p2ptrumps/ai/_core.c"],
            extra_compile_args=["-O2"],
            optional=True,
        )
    ]
)
