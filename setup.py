"""Package discovery for the one ``cardsim`` import package (metadata is in pyproject.toml).

The repository keeps the brief's top-level folders (``simcore/``, ``cli/``, ``analysis/``);
they install as ``cardsim.simcore``, ``cardsim.cli`` and ``cardsim.analysis``, with every
subpackage found automatically.
"""
from setuptools import find_packages, setup

FOLDERS = {"cardsim": "cardsim", "cardsim.simcore": "simcore", "cardsim.cli": "cli", "cardsim.analysis": "analysis"}

packages = []
for package, folder in FOLDERS.items():
    packages.append(package)
    packages += [f"{package}.{sub}" for sub in find_packages(folder)]

setup(packages=packages, package_dir=FOLDERS)
