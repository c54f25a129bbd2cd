"""A graph's SVG keeps Graphviz's shapes and text and nothing a browser would run or
fetch: no scripts, event handlers, links, foreign HTML, images or stylesheets."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from gradshell.jupyter.svg import ATTRIBUTES, ELEMENTS, SVG_NS, clean_svg

# What Graphviz writes for a DOT file that asks for a link, a stylesheet and an image,
# with scripts and handlers added by hand as a kernel could forge them.
HOSTILE = """<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<?xml-stylesheet href="http://evil.example/x.css" type="text/css"?>
<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN"
 "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">
<svg width="62pt" height="44pt" viewBox="0.00 0.00 62.00 44.00" onload="alert(1)"
 xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">
<script>alert(2)</script>
<g id="graph0" class="graph" transform="scale(1 1) rotate(0) translate(4 40)">
<title>&lt;script&gt;alert(3)&lt;/script&gt;</title>
<!-- n0 -->
<g id="a_node1"><a xlink:href="javascript:alert(4)" xlink:title="x">
<ellipse fill="url(#l_0)" stroke="black" cx="27" cy="-18" rx="27" ry="18" onclick="alert(5)"/>
<text text-anchor="middle" x="27" y="-14.3" font-family="Times,serif" font-size="14.00"
 style="background:url(http://evil.example/)">&lt;img src=x onerror=alert(6)&gt;</text>
</a></g>
<image xlink:href="http://evil.example/pixel.png" width="1" height="1"/>
<foreignObject width="10" height="10"><img xmlns="http://www.w3.org/1999/xhtml"
 src="x" onerror="alert(7)"/></foreignObject>
<use href="#graph0"/>
<polygon fill="white" stroke="none" points="-4,4 -4,-40 58,-40 58,4 -4,4"/>
</g>
</svg>
"""


def test_only_graphvizs_shapes_and_text_remain():
    cleaned = clean_svg(HOSTILE)
    root = ET.fromstring(cleaned)
    names = {element.tag.removeprefix("{" + SVG_NS + "}") for element in root.iter()}
    assert names <= ELEMENTS and {"ellipse", "text", "polygon", "title"} <= names
    attributes = {name for element in root.iter() for name in element.attrib}
    assert attributes <= ATTRIBUTES
    for needle in ("alert(1)", "alert(2)", "alert(4)", "alert(5)", "alert(7)", "evil.example"):
        assert needle not in cleaned, needle
    # learner-controlled text stays, as text
    assert "&lt;img src=x onerror=alert(6)&gt;" in cleaned
    assert "&lt;script&gt;alert(3)&lt;/script&gt;" in cleaned
    # a gradient of the picture's own may still be named, and shapes still placed
    assert 'fill="url(#l_0)"' in cleaned
    assert 'transform="scale(1 1) rotate(0) translate(4 40)"' in cleaned


def test_what_is_not_an_svg_picture_is_refused():
    with pytest.raises(ValueError):
        clean_svg('<html xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></html>')
    with pytest.raises(ET.ParseError):
        clean_svg("<svg")
