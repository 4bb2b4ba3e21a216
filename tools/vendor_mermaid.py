"""Mermaid for the documentation site, served from the site itself (no CDN, so every
diagram renders offline).

The site build (tools/mkdocs_hooks.py) copies `mermaid.min.js` and its licence into the
built site. The file comes from the npm package `mermaid`, pinned here by version and by
the registry's sha512 integrity of its tarball; `npm pack` (npm's ordinary client, no
dependencies installed) fetches it once into `.cache/` at the repository's root, where
later builds find it. `python -m tools.vendor_mermaid` fetches it ahead of a build (an
offline build then needs nothing more).

Why this and not diagrams drawn at build time: rendering Mermaid outside a browser needs
mermaid-cli, which drives a headless Chromium through puppeteer (hundreds of MB, and a
browser download of its own); the one 3.5 MB self-contained script is what the theme
would fetch from a CDN anyway, and Material for MkDocs uses a `mermaid` already on the
page instead of fetching one. Mermaid is MIT-licensed; its LICENSE ships beside it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

#: the Mermaid the site ships (Material for MkDocs 9 expects Mermaid 11)
VERSION = "11.17.2"
#: the npm registry's integrity of mermaid-VERSION.tgz
INTEGRITY = ("sha512-V6K3C8EBdEsPFZXSKMJe6ppQOENxuHARr9GvHX4hh47lAbhMRD9qf4oEK7LoaRQxULMa80/"
             "qt5gHO73aCleBBg==")
ROOT = Path(__file__).resolve().parent.parent
#: sha256 of the script itself, so a cached copy is checked too
SCRIPT_SHA256 = "581ed7d74bd9048d0e3a91363927d72ef22942d7722546b27f7cc29e35390eb8"
CACHE = ROOT / ".cache" / f"mermaid-{VERSION}"
#: the files taken from the package, and their names on the site
FILES = {"package/dist/mermaid.min.js": "mermaid.min.js",
         "package/LICENSE": "mermaid.LICENSE.txt"}


class VendorError(RuntimeError):
    """Mermaid could not be had: the message says what to do."""


def _integrity(path: Path) -> str:
    digest = hashlib.sha512(path.read_bytes()).digest()
    return "sha512-" + base64.b64encode(digest).decode("ascii")


def cached() -> Path | None:
    """The folder holding the vendored files, if they are all there."""
    if not all((CACHE / name).is_file() for name in FILES.values()):
        return None
    script = (CACHE / "mermaid.min.js").read_bytes()
    return CACHE if hashlib.sha256(script).hexdigest() == SCRIPT_SHA256 else None


def fetch() -> Path:
    """The vendored files' folder, fetching the pinned package with `npm pack` if needed."""
    have = cached()
    if have is not None:
        return have
    npm = shutil.which("npm")
    if npm is None:
        raise VendorError(f"the site serves Mermaid {VERSION} itself, and fetching it needs "
                          "npm (Node.js); install npm and build again, or run "
                          "`python -m tools.vendor_mermaid` where npm is")
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run([npm, "pack", f"mermaid@{VERSION}", "--json",
                               "--pack-destination", tmp], capture_output=True, text=True,
                              timeout=600, cwd=tmp)
        if proc.returncode != 0:
            raise VendorError(f"npm pack mermaid@{VERSION} failed: "
                              f"{proc.stderr.strip()[-500:]}")
        tarball = Path(tmp) / json.loads(proc.stdout)[0]["filename"]
        if _integrity(tarball) != INTEGRITY:
            raise VendorError(f"mermaid-{VERSION}.tgz does not match its pinned integrity")
        staging = Path(tmp) / "out"
        staging.mkdir()
        with tarfile.open(tarball, "r:gz") as tar:
            for member, name in FILES.items():
                source = tar.extractfile(member)
                if source is None:
                    raise VendorError(f"mermaid-{VERSION}.tgz has no {member}")
                (staging / name).write_bytes(source.read())
        script = (staging / "mermaid.min.js").read_bytes()
        if hashlib.sha256(script).hexdigest() != SCRIPT_SHA256:
            raise VendorError(f"mermaid-{VERSION}'s mermaid.min.js is not the pinned file")
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        if CACHE.exists():
            shutil.rmtree(CACHE)
        shutil.move(str(staging), CACHE)
    return CACHE


def main() -> int:
    try:
        where = fetch()
    except VendorError as exc:
        print(f"error: {exc}")
        return 2
    print(f"Mermaid {VERSION}: {where.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
