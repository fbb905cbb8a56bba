#!/usr/bin/env python3
"""Make gpuready's Python wheel from an installed tree (`cmake --install` of a build), as ruff and cmake ship their
executables: `pip install gpuready` puts the native gpuready on the environment's PATH.

  scripts/packaging/wheel.py INSTALL_TREE VERSION PLATFORM_TAG OUT_DIR

  INSTALL_TREE  Linux: bin/gpuready, lib/gpuready/*.so (share/ is left out: pip has no place for man pages)
                Windows: gpuready.exe and its DLLs at the top
  PLATFORM_TAG  manylinux_2_31_x86_64 (the portable build: glibc 2.31) or win_amd64

The wheel (py3-none-PLATFORM_TAG) holds the executable as a script (gpuready-V.data/scripts: pip installs it into the
environment's bin/ or Scripts\\), the modules where the executable looks for them (Linux: <env>/lib/gpuready/, from
gpuready-V.data/data/lib/gpuready; Windows: beside gpuready.exe, in Scripts\\), and a small `gpuready` package so that
`python -m gpuready` runs it too. Packed with Debian's python3-wheel (`python3 -m wheel pack`), which writes RECORD.
"""
import os
import shutil
import subprocess
import sys
import tempfile

MAIN = '''"""`python -m gpuready`: runs the gpuready executable this wheel installed into the environment's scripts folder."""
import os
import sys
import sysconfig


def find_gpuready():
    exe = "gpuready.exe" if os.name == "nt" else "gpuready"
    for scheme in (sysconfig.get_default_scheme(), "posix_user" if os.name != "nt" else "nt_user"):
        try:
            path = os.path.join(sysconfig.get_path("scripts", scheme), exe)
        except KeyError:
            continue
        if os.path.isfile(path):
            return path
    raise FileNotFoundError("the gpuready executable is not in this environment's scripts folder")


def main():
    exe = find_gpuready()
    if os.name == "nt":
        import subprocess
        sys.exit(subprocess.call([exe, *sys.argv[1:]]))
    os.execv(exe, [exe, *sys.argv[1:]])


if __name__ == "__main__":
    main()
'''


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    tree, version, plat, out_dir = sys.argv[1:]
    windows = plat.startswith("win")
    name = f"gpuready-{version}"
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, name)
        scripts = os.path.join(root, f"{name}.data", "scripts")
        os.makedirs(scripts)
        if windows:
            for f in sorted(os.listdir(tree)):
                if f.lower().endswith((".exe", ".dll")):
                    shutil.copy2(os.path.join(tree, f), scripts)
            if not os.path.isfile(os.path.join(scripts, "gpuready.exe")):
                sys.exit(f"wheel.py: {tree} has no gpuready.exe")
        else:
            exe = os.path.join(tree, "bin", "gpuready")
            if not os.path.isfile(exe):
                sys.exit(f"wheel.py: {exe} not found")
            shutil.copy2(exe, scripts)
            modules = os.path.join(tree, "lib", "gpuready")
            if os.path.isdir(modules):
                shutil.copytree(modules, os.path.join(root, f"{name}.data", "data", "lib", "gpuready"))
        pkg = os.path.join(root, "gpuready")
        os.makedirs(pkg)
        with open(os.path.join(pkg, "__init__.py"), "w") as f:
            f.write(f'"""gpuready {version}: the native executable is `gpuready` on PATH, or `python -m gpuready`."""\n'
                    f'__version__ = "{version}"\n')
        with open(os.path.join(pkg, "__main__.py"), "w") as f:
            f.write(MAIN)
        info = os.path.join(root, f"{name}.dist-info")
        os.makedirs(info)
        here = os.path.dirname(os.path.abspath(__file__))
        license_file = os.path.join(here, "..", "..", "LICENSE")
        shutil.copy2(license_file, os.path.join(info, "LICENSE"))
        readme = ("gpuready answers, for anyone who wants to train deep-learning models on a GPU: is this machine "
                  "ready, and if not, exactly what to do? It probes the GPU, driver, CUDA toolkits, libraries and "
                  "Python environments (this one included), explains pasted errors, verifies and benchmarks.\n\n"
                  "    pip install gpuready && gpuready\n")
        with open(os.path.join(info, "METADATA"), "w") as f:
            f.write("Metadata-Version: 2.1\n"
                    "Name: gpuready\n"
                    f"Version: {version}\n"
                    "Summary: Is this machine ready for GPU deep learning, and if not, exactly what to do\n"
                    "License: Apache-2.0\n"
                    "Classifier: Environment :: GPU :: NVIDIA CUDA\n"
                    "Classifier: Programming Language :: C++\n"
                    f"Classifier: Operating System :: {'Microsoft :: Windows' if windows else 'POSIX :: Linux'}\n"
                    "Requires-Python: >=3.7\n"
                    "Description-Content-Type: text/markdown\n\n" + readme)
        with open(os.path.join(info, "WHEEL"), "w") as f:
            f.write("Wheel-Version: 1.0\nGenerator: gpuready scripts/packaging/wheel.py\nRoot-Is-Purelib: false\n"
                    f"Tag: py3-none-{plat}\n")
        os.makedirs(out_dir, exist_ok=True)
        subprocess.run([sys.executable, "-m", "wheel", "pack", "--dest-dir", out_dir, root], check=True)


if __name__ == "__main__":
    main()
