"""A graph's SVG with nothing in it that a browser would run or fetch.

`%graph` in a notebook draws the DOT text the kernel sent with Graphviz, and the
notebook shows the SVG inside its page. The DOT comes from the kernel, which learner code
may own (without the in-process checker), and DOT can ask for links (`URL`, `href`),
stylesheets and images; Graphviz writes them into the SVG. So the SVG is parsed and
written again keeping only the shapes and text Graphviz draws: an element outside that
list is dropped with what it holds (a link keeps its drawing, without the link), an
attribute outside it is dropped, and no value may reach outside the picture (`url(...)`
only to the picture's own gradients). Text is escaped again when the tree is written.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

SVG_NS = "http://www.w3.org/2000/svg"

#: What Graphviz draws a graph with.
ELEMENTS = {
    "svg",
    "g",
    "title",
    "polygon",
    "polyline",
    "ellipse",
    "circle",
    "path",
    "text",
    "defs",
    "linearGradient",
    "radialGradient",
    "stop",
}

#: Elements whose drawing is kept while they themselves go (Graphviz's links).
UNWRAPPED = {"a"}

#: Presentation and geometry, none of which can name anything outside the picture.
ATTRIBUTES = {
    "width",
    "height",
    "viewBox",
    "preserveAspectRatio",
    "version",
    "id",
    "class",
    "transform",
    "points",
    "d",
    "x",
    "y",
    "x1",
    "y1",
    "x2",
    "y2",
    "cx",
    "cy",
    "r",
    "rx",
    "ry",
    "fx",
    "fy",
    "offset",
    "gradientUnits",
    "gradientTransform",
    "fill",
    "fill-opacity",
    "stroke",
    "stroke-width",
    "stroke-opacity",
    "stroke-dasharray",
    "opacity",
    "text-anchor",
    "font-family",
    "font-size",
    "font-weight",
    "font-style",
    "text-decoration",
    "style",
}

#: A reference Graphviz makes to its own gradients: url(#l_0).
_OWN_REFERENCE = re.compile(r"url\(#[\w.-]+\)")

#: What would let a value reach outside the picture: a url() (or CSS's image-set() and
#: the like), a script, an at-rule, or a CSS escape that could spell any of them.
_REACHES_OUT = re.compile(r"url|image|javascript|expression|[@\\]", re.IGNORECASE)


def clean_svg(svg: str) -> str:
    """`svg` with only Graphviz's shapes and text, and no links, scripts or fetches."""
    ET.register_namespace("", SVG_NS)
    root = ET.fromstring(svg)  # comments, processing instructions and the DOCTYPE go
    if _name(root) != "svg":
        raise ValueError("not an SVG picture")
    _clean(root)
    return ET.tostring(root, encoding="unicode") + "\n"


def _name(element: ET.Element) -> str | None:
    """The element's name in the SVG namespace (None for another namespace's)."""
    tag = element.tag if isinstance(element.tag, str) else ""
    if tag.startswith("{" + SVG_NS + "}"):
        return tag[len(SVG_NS) + 2 :]
    return None


def _clean(element: ET.Element) -> None:
    for name in list(element.attrib):
        if name not in ATTRIBUTES or not _safe_value(element.attrib[name]):
            del element.attrib[name]
    children = list(element)
    for child in children:
        element.remove(child)
    for child in children:
        name = _name(child)
        if name in ELEMENTS:
            _clean(child)
            element.append(child)
        elif name in UNWRAPPED:
            _clean(child)
            for grandchild in child:
                element.append(grandchild)


def _safe_value(value: str) -> bool:
    return not _REACHES_OUT.search(_OWN_REFERENCE.sub("", value))


__all__ = ["clean_svg"]
