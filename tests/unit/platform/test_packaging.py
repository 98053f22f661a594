"""One distribution: pyproject.toml's packages and package data, what the runtime reads, and what deploy/Dockerfile
copies must agree (static checks; the wheel itself is built and run in tests/e2e/platform/test_wheel.py)."""

from __future__ import annotations

import fnmatch
import re
import tomllib

import pytest

from core import resources, settings
from core.settings import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
DATA_SUFFIXES = {".md", ".yaml", ".yml", ".txt", ".json"}


def top_level_packages() -> list[str]:
    include = PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]
    return sorted({pattern.rstrip("*").rstrip(".") for pattern in include})


def package_data() -> dict[str, list[str]]:
    return PYPROJECT["tool"]["setuptools"]["package-data"]


def dockerfile_stages() -> list[list[str]]:
    """The Dockerfile's instructions per stage (continuation lines joined, comments dropped)."""
    stages: list[list[str]] = [[]]
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text(encoding="utf-8"))
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("FROM "):
            stages.append([])
        stages[-1].append(line)
    return stages[1:]


def context_copies(instructions: list[str]) -> list[tuple[list[str], str]]:
    """(sources, destination) of each COPY from the build context (COPY --from=... copies from a stage)."""
    out = []
    for line in instructions:
        if line.startswith("COPY ") and "--from=" not in line:
            *sources, dest = [w for w in line.split()[1:] if not w.startswith("--")]
            out.append((sources, dest))
    return out


def test_every_package_folder_exists_and_is_a_package():
    for name in top_level_packages():
        assert (ROOT / name / "__init__.py").is_file(), f"{name}/ is listed in pyproject.toml but is no package"


def test_data_packages_are_packaged_with_all_their_files():
    data = package_data()
    packages = top_level_packages()
    for name in (*resources.DATA_PACKAGES, "client.rehearsal"):
        assert name.split(".")[0] in packages, f"{name} is not in pyproject's packages"
        assert name in data, f"{name} has no package-data globs"
        folder = ROOT / name.replace(".", "/")
        files = [p.relative_to(folder).as_posix() for p in folder.rglob("*")
                 if p.is_file() and p.suffix in DATA_SUFFIXES]
        assert files, f"{name} has no data files"
        for rel in files:
            assert any(_glob_match(rel, g) for g in data[name]), f"{name}/{rel} would be left out of the wheel"


def _glob_match(rel: str, pattern: str) -> bool:
    if pattern.startswith("**/"):
        return fnmatch.fnmatch(rel, pattern[3:]) or fnmatch.fnmatch(rel, pattern)
    return fnmatch.fnmatch(rel, pattern) and rel.count("/") == pattern.count("/")


@pytest.mark.parametrize("package, probe", [
    ("prompts", "query/route_input.md"), ("configs", "writing/default.yaml"), ("domains", "base.yaml"),
    ("apps", "fitness/app.yaml"), ("apps", "fitness/sample_notes")])
def test_resources_are_found_through_importlib(package, probe):
    folder = resources.resource_dir(package)
    assert (folder / probe).exists()
    assert folder == (ROOT / package)  # in this checkout: the repository's folder, found as a package


def test_the_runtime_reads_data_only_through_core_resources():
    """No runtime module locates files from its own source path (that breaks in an installed wheel)."""
    offenders = []
    for name in top_level_packages():
        if name == "bench":  # benchmarks run from a checkout
            continue
        for path in (ROOT / name).rglob("*.py"):
            rel = path.relative_to(ROOT).as_posix()
            if rel != "core/settings.py" and "__file__" in path.read_text(encoding="utf-8"):
                offenders.append(rel)
    assert not offenders, f"paths computed from __file__ in {offenders}: use core.resources"


def test_data_dir_in_a_checkout_an_install_and_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("COLLOQUY_DATA_DIR", raising=False)
    assert settings.source_checkout() and settings.data_dir() == ROOT / ".data"
    installed = tmp_path / "site-packages"
    (installed / "core").mkdir(parents=True)
    monkeypatch.setattr(settings, "ROOT", installed)
    monkeypatch.chdir(tmp_path)
    assert not settings.source_checkout()
    assert settings.data_dir() == tmp_path.resolve() / ".data"  # the working directory, never site-packages
    monkeypatch.setenv("COLLOQUY_DATA_DIR", str(tmp_path / "elsewhere"))
    assert settings.data_dir() == (tmp_path / "elsewhere").resolve()


def test_dockerfile_copies_what_the_wheel_is_built_from_and_installs_the_wheel():
    stages = dockerfile_stages()
    build, runtime = stages[0], stages[-1]
    copied: dict[str, str] = {}
    for sources, dest in context_copies(build):
        for src in sources:
            assert (ROOT / src).exists(), f"COPY {src}: no such path"
            copied[src.rstrip("/")] = dest
    readme = PYPROJECT["project"]["readme"]
    required = {"pyproject.toml", readme, *top_level_packages()}
    missing = sorted(required - set(copied))
    assert not missing, f"deploy/Dockerfile does not copy {missing} (pyproject.toml packages them)"
    for name in top_level_packages():
        assert copied[name].rstrip("/") in (f"./{name}", name), f"COPY {name} must keep its place in the tree"
    build_text = "\n".join(build)
    assert "pip install -e" not in build_text and "--editable" not in build_text
    assert re.search(r"pip wheel --no-deps -w (\S+) \.", build_text)
    assert re.search(r"pip install -c deploy/constraints\.txt /\S+/colloquy-\*\.whl", build_text)
    assert "deploy/constraints.txt" in copied  # the lock make install uses: the image gets the same versions
    # The runtime stage gets the venv (code + package data) and nothing from the build context.
    assert not context_copies(runtime), "the runtime image must not copy sources: the wheel carries them"
    assert any(line.startswith("COPY --from=build /opt/venv /opt/venv") for line in runtime)
    assert "COLLOQUY_DATA_DIR=/data" in "\n".join(runtime)


def test_dockerignore_keeps_what_the_dockerfile_copies():
    ignore = ROOT / ".dockerignore"
    if not ignore.is_file():
        return
    patterns = [p.strip() for p in ignore.read_text().splitlines() if p.strip() and not p.startswith("#")]
    for sources, _ in context_copies(dockerfile_stages()[0]):
        for src in sources:
            assert not any(fnmatch.fnmatch(src.rstrip("/"), p) for p in patterns), f"{src} is in .dockerignore"

