package org.stackfold.render.flamegraph;

import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * Reads the frames of a flame graph SVG (flamegraph.pl's, inferno's or ours) into comparable
 * records: geometry in pixels whatever the source used, title parsed into name / count / percent /
 * delta. Parsing with a real XML parser doubles as the "is it well-formed" check.
 */
final class SvgFrames {
    record Frame(double x, double y, double width, double height, String fill, String title, String name, long count,
                 String unit, String pct, String delta, String text, Map<String, String> containerAttrs, String tag) {
    }

    record Parsed(Document doc, double svgHeight, List<Frame> frames) {
        Element byId(String id) {
            NodeList all = doc.getElementsByTagName("*");
            for (int i = 0; i < all.getLength(); i++) {
                Element e = (Element) all.item(i);
                if (id.equals(e.getAttribute("id"))) {
                    return e;
                }
            }
            return null;
        }
    }

    private static final Pattern TITLE = Pattern.compile(
            "(?s)^(.*) \\(([0-9,]+) (.+?), ([0-9.]+)%(?:; ([+-]?[0-9.]+)%)?(?:; before [0-9,]+, after [0-9,]+)?\\)$");

    static Parsed parse(byte[] svg) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(false);
        f.setValidating(false);
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        DocumentBuilder b = f.newDocumentBuilder();
        b.setErrorHandler(null);
        Document doc = b.parse(new ByteArrayInputStream(svg));
        Element root = doc.getDocumentElement();
        double height = Double.parseDouble(root.getAttribute("height"));
        double offset = 0, scale = 0;
        Element container = null;
        NodeList svgs = doc.getElementsByTagName("svg");
        for (int i = 0; i < svgs.getLength(); i++) {
            Element e = (Element) svgs.item(i);
            if ("frames".equals(e.getAttribute("id"))) {
                container = e;
                offset = Double.parseDouble(e.getAttribute("x"));
                scale = Double.parseDouble(e.getAttribute("width")) / 100.0;
            }
        }
        List<Frame> frames = new ArrayList<>();
        NodeList rects = doc.getElementsByTagName("rect");
        for (int i = 0; i < rects.getLength(); i++) {
            Element r = (Element) rects.item(i);
            Node parent = r.getParentNode();
            if (!(parent instanceof Element g) || !(g.getTagName().equals("g") || g.getTagName().equals("a"))) {
                continue;
            }
            if (container == null && !isInFramesGroup(g)) {
                continue;
            }
            String title = childText(g, "title");
            String text = childText(g, "text");
            double x = coord(r.getAttribute("x"), offset, scale);
            double w = coord(r.getAttribute("width"), 0, scale);
            double y = Double.parseDouble(r.getAttribute("y"));
            double h = Double.parseDouble(r.getAttribute("height"));
            Matcher m = TITLE.matcher(title == null ? "" : title);
            String name = null, unit = null, pct = null, delta = null;
            long count = -1;
            if (m.matches()) {
                name = m.group(1);
                count = Long.parseLong(m.group(2).replace(",", ""));
                unit = m.group(3);
                pct = m.group(4);
                delta = m.group(5);
            }
            Map<String, String> attrs = new LinkedHashMap<>();
            NamedNodeMap nm = g.getAttributes();
            for (int k = 0; k < nm.getLength(); k++) {
                attrs.put(nm.item(k).getNodeName(), nm.item(k).getNodeValue());
            }
            frames.add(new Frame(x, y, w, h, r.getAttribute("fill"), title, name, count, unit, pct, delta, text, attrs,
                    g.getTagName()));
        }
        return new Parsed(doc, height, frames);
    }

    private static boolean isInFramesGroup(Element g) {
        for (Node p = g.getParentNode(); p instanceof Element e; p = e.getParentNode()) {
            if ("frames".equals(e.getAttribute("id"))) {
                return true;
            }
        }
        return false;
    }

    private static double coord(String v, double offset, double scale) {
        if (v.endsWith("%")) {
            return offset + Double.parseDouble(v.substring(0, v.length() - 1)) * scale;
        }
        return Double.parseDouble(v);
    }

    private static String childText(Element g, String tag) {
        for (Node c = g.getFirstChild(); c != null; c = c.getNextSibling()) {
            if (c instanceof Element e && e.getTagName().equals(tag)) {
                return e.getTextContent();
            }
        }
        return null;
    }
}
