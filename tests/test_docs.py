"""The README and docs/architecture.md describe this repository as a fresh clone has it."""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _read(path):
  with open(os.path.join(ROOT, path), encoding="utf-8") as f:
    return f.read()


def test_readme_links_resolve_inside_the_repository():
  readme = _read("README.md")
  assert "../shared" not in readme
  assert "docs/architecture.md" in readme
  for target in re.findall(r"\]\(([^)#]+)\)", readme):
    if "://" in target:
      continue
    path = os.path.normpath(os.path.join(ROOT, target))
    assert path.startswith(ROOT + os.sep) and os.path.exists(path), target


def test_readme_says_what_does_not_work_and_how_long_tests_take():
  readme = _read("README.md")
  assert "## What does not work yet" in readme
  for name in ("pmap", "jax.debug", "pure_callback", "Flax"):
    assert name in readme
  assert re.search(r"suite takes\s+about \d+ minutes", readme)


def test_architecture_doc_names_every_src_module_and_only_existing_ones():
  doc = _read("docs/architecture.md")
  src = os.path.join(ROOT, "axle", "_src")
  for name in sorted(os.listdir(src)):
    if name.startswith("_") or name == "test_util.py":
      continue
    stem = name[:-3] if name.endswith(".py") else name
    if name.endswith(".py") or os.path.isdir(os.path.join(src, name)):
      assert stem in doc, f"docs/architecture.md does not mention axle/_src/{name}"
  for module in re.findall(r"`((?:[a-z_]+/)*[a-z_]+\.py)`", doc):
    candidates = [os.path.join(src, module), os.path.join(src, "interpreters", module),
                  os.path.join(src, "xla", module), os.path.join(ROOT, module),
                  os.path.join(ROOT, "tests", module)]
    assert any(os.path.exists(c) for c in candidates), module
