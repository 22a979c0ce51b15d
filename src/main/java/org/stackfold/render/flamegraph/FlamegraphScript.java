package org.stackfold.render.flamegraph;

/**
 * The script every SVG flame graph carries: zoom, search, details, URL state (docs/flamegraph.md).
 *
 * <p>A constant rather than a resource file: reading a resource opens the jar and indexes its
 * central directory (~1,900 entries), which no other step of a flame graph does, its classes coming
 * from the AOT cache; that was some 5-10 ms of CPU in a small {@code flamegraph} (docs/startup.md,
 * fourth round). The text block holds the script verbatim while it has no backslash and no
 * trailing blank (a text block would read escapes and drop those); {@code FlameGraphBrowserTest}
 * runs it in Chromium.
 */
final class FlamegraphScript {
    private FlamegraphScript() {
    }

    static final String JS = """
// Stackfold flame graph viewer: zoom, search, details, URL state. Written for stackfold; no peer code.
// Reads the frames once into arrays (start and width in samples from fg:x/fg:w, y, name), then
// every zoom or search is one pass over those arrays. Works in any browser that renders SVG.
"use strict";
var sf = (function () {
	var cfg = typeof stackfold === "object" ? stackfold : {};
	var fgNS = "http://github.com/jonhoo/inferno";
	var doc, svgRoot, framesEl, details, unzoomBtn, searchBtn, icBtn, matchedTxt;
	var groups = [], rects = [], texts = [], names = [], titles = [];
	var x0 = [], w0 = [], ys = [], fills = [];
	var origX = [], origW = [], origTextX = [], origLabel = [];
	var touched = []; // frames whose geometry or class the current zoom changed
	var width = 1200, xpad = cfg.xpad || 10, glyph = (cfg.fontsize || 12) * (cfg.fontwidth || 0.59);
	var zoomed = -1, zoomX = 0, zoomW = 0, total = 0, root = -1;
	var term = null, ignoreCase = false, matched = null;

	function attrNum(el, ns, name) {
		var v = ns ? el.getAttributeNS(ns, name) : null;
		if (v === null || v === "") v = el.getAttribute((ns ? "fg:" : "") + name);
		return v === null || v === "" ? NaN : parseFloat(v);
	}

	// The function name of a title "name (N samples, P%...)": everything before the last " (".
	function nameOf(title) {
		var i = title.lastIndexOf(" (");
		return i < 0 ? title : title.substring(0, i);
	}

	function init(evt) {
		doc = (evt && evt.target && evt.target.ownerDocument) || document;
		svgRoot = doc.documentElement;
		framesEl = doc.getElementById("frames");
		details = doc.getElementById("details");
		unzoomBtn = doc.getElementById("unzoom");
		searchBtn = doc.getElementById("search");
		icBtn = doc.getElementById("ignorecase");
		matchedTxt = doc.getElementById("matched");
		width = parseFloat(svgRoot.getAttribute("width")) || 1200;
		if (!framesEl) return;
		var kids = framesEl.children || framesEl.childNodes;
		for (var i = 0; i < kids.length; i++) {
			var g = kids[i];
			if (g.nodeType !== 1) continue;
			var r = g.getElementsByTagName("rect")[0];
			if (!r) continue;
			var t = g.getElementsByTagName("text")[0];
			var ti = g.getElementsByTagName("title")[0];
			var title = ti ? ti.textContent : "";
			var k = groups.length;
			groups.push(g);
			rects.push(r);
			texts.push(t || null);
			titles.push(title);
			names.push(g.getAttribute("data-name") !== null ? g.getAttribute("data-name") : nameOf(title));
			x0.push(attrNum(r, fgNS, "x"));
			w0.push(attrNum(r, fgNS, "w"));
			ys.push(parseFloat(r.getAttribute("y")));
			fills.push(r.getAttribute("fill"));
			origX.push(r.getAttribute("x"));
			origW.push(r.getAttribute("width"));
			origTextX.push(t ? t.getAttribute("x") : null);
			origLabel.push(t ? t.textContent : null);
			g.setAttribute("data-i", k);
			if (w0[k] > total) total = w0[k];
			if (title.indexOf("all (") === 0 && x0[k] === 0 && (root < 0 || (cfg.inverted ? ys[k] < ys[root] : ys[k] > ys[root]))) root = k;
		}
		framesEl.addEventListener("mouseover", onOver);
		framesEl.addEventListener("mouseout", onOut);
		framesEl.addEventListener("click", onClick);
		if (unzoomBtn) unzoomBtn.addEventListener("click", function () { unzoom(); });
		if (searchBtn) searchBtn.addEventListener("click", function () { term === null ? searchPrompt() : resetSearch(); });
		if (icBtn) icBtn.addEventListener("click", function () { toggleIgnoreCase(); });
		doc.addEventListener("keydown", onKey);
		if (cfg.fluid && typeof window !== "undefined") {
			relayout();
			window.addEventListener("resize", relayout);
		}
		restoreFromUrl();
	}

	// --fluid: the graph takes the window's width; frames and labels are laid out again on resize.
	function relayout() {
		var w = Math.max(200, Math.floor(window.innerWidth || doc.documentElement.clientWidth || width));
		if (w === width && svgRoot.getAttribute("width") === String(w)) return;
		var h = svgRoot.getAttribute("height");
		width = w;
		svgRoot.setAttribute("width", w);
		svgRoot.setAttribute("viewBox", "0 0 " + w + " " + h);
		var bg = svgRoot.querySelector("rect[fill='url(#background)']");
		if (bg) bg.setAttribute("width", w);
		var mid = { title: w / 2, subtitle: w / 2, search: w - xpad - 100, ignorecase: w - xpad - 16, matched: w - xpad - 100 };
		for (var id in mid) {
			var el = doc.getElementById(id);
			if (el) el.setAttribute("x", mid[id].toFixed(2));
		}
		var scale = (w - 2 * xpad) / total, keep = zoomed;
		restore();
		for (var i = 0; i < groups.length; i++) {
			place(i, xpad + x0[i] * scale, w0[i] * scale);
			origX[i] = rects[i].getAttribute("x");
			origW[i] = rects[i].getAttribute("width");
			if (texts[i]) { origTextX[i] = texts[i].getAttribute("x"); origLabel[i] = texts[i].textContent; }
		}
		if (keep >= 0) zoom(keep);
	}

	function frameIndexOf(el) {
		while (el && el !== framesEl) {
			if (el.getAttribute && el.getAttribute("data-i") !== null) return parseInt(el.getAttribute("data-i"), 10);
			el = el.parentNode;
		}
		return -1;
	}

	function fmtPct(v) {
		return (Math.round(v * 100) / 100).toFixed(2);
	}

	function describe(i) {
		var s = (cfg.nametype || "Function:") + " " + titles[i];
		if (cfg.relativePercent && zoomed >= 0 && zoomW > 0) {
			var inZoom = Math.max(0, Math.min(x0[i] + w0[i], zoomX + zoomW) - Math.max(x0[i], zoomX));
			s += " [" + fmtPct(100 * inZoom / zoomW) + "% of " + names[zoomed] + "]";
		}
		return s;
	}

	function onOver(e) {
		var i = frameIndexOf(e.target);
		if (i >= 0 && details) details.textContent = describe(i);
	}

	function onOut(e) {
		if (details) details.textContent = " ";
	}

	function onClick(e) {
		var i = frameIndexOf(e.target);
		if (i < 0) return;
		var link = groups[i].tagName === "a" || groups[i].localName === "a";
		if (link && (e.ctrlKey || e.metaKey)) return; // follow the link
		e.preventDefault();
		zoom(i);
	}

	function onKey(e) {
		if ((e.ctrlKey && (e.key === "f" || e.keyCode === 70)) || e.keyCode === 114) {
			e.preventDefault();
			searchPrompt();
		} else if (e.ctrlKey && (e.key === "i" || e.keyCode === 73)) {
			e.preventDefault();
			toggleIgnoreCase();
		} else if (e.keyCode === 27) {
			resetSearch();
		}
	}

	// Label for a frame `px` pixels wide: as much of the name as fits, ".." marking the cut.
	function label(name, px) {
		var chars = Math.floor(px / glyph);
		if (chars < 3) return "";
		if (name.length <= chars) return name;
		if (cfg.truncateRight === false) return ".." + name.substring(name.length - (chars - 2));
		return name.substring(0, chars - 2) + "..";
	}

	function place(i, x, w) {
		var r = rects[i];
		r.setAttribute("x", x.toFixed(1));
		r.setAttribute("width", w.toFixed(1));
		var t = texts[i];
		if (t) {
			t.setAttribute("x", (x + 3).toFixed(2));
			t.textContent = i === root ? "" : label(names[i], w);
		}
	}

	// Zoom to frame z: its ancestors span the whole width (dimmed), its subtree is scaled to the
	// whole width, everything else is hidden. Exact, in samples.
	function zoom(z) {
		restore();
		zoomed = z;
		zoomX = x0[z];
		zoomW = w0[z];
		var zy = ys[z], inv = !!cfg.inverted;
		var full = width - 2 * xpad, scale = full / zoomW;
		for (var i = 0; i < groups.length; i++) {
			var g = groups[i], a = x0[i], w = w0[i];
			var below = inv ? ys[i] < zy : ys[i] > zy; // ancestor rows
			if (below && a <= zoomX && a + w >= zoomX + zoomW) {
				g.classList.add("parent");
				place(i, xpad, full);
			} else if (!below && a >= zoomX && a + w <= zoomX + zoomW) {
				place(i, xpad + (a - zoomX) * scale, w * scale);
			} else {
				g.classList.add("hide");
			}
			touched.push(i);
		}
		if (unzoomBtn) unzoomBtn.classList.remove("hide");
		updateUrl();
		if (term !== null) search(term);
	}

	// Puts every frame the last zoom changed back as drawn.
	function restore() {
		for (var k = 0; k < touched.length; k++) {
			var i = touched[k], g = groups[i];
			g.classList.remove("hide");
			g.classList.remove("parent");
			var r = rects[i];
			if (r.getAttribute("x") !== origX[i]) r.setAttribute("x", origX[i]);
			if (r.getAttribute("width") !== origW[i]) r.setAttribute("width", origW[i]);
			var t = texts[i];
			if (t && t.getAttribute("x") !== origTextX[i]) {
				t.setAttribute("x", origTextX[i]);
				t.textContent = origLabel[i];
			}
		}
		touched = [];
	}

	function unzoom() {
		restore();
		zoomed = -1;
		if (unzoomBtn) unzoomBtn.classList.add("hide");
		updateUrl();
		if (term !== null) search(term);
	}

	function searchPrompt() {
		var t = prompt("Enter a search term (regexp allowed" + (ignoreCase ? ", case ignored" : "") + ")", term || "");
		if (t !== null && t !== "") search(t);
	}

	function toggleIgnoreCase() {
		ignoreCase = !ignoreCase;
		if (icBtn) {
			if (ignoreCase) icBtn.classList.add("show"); else icBtn.classList.remove("show");
		}
		if (term !== null) search(term);
	}

	// Highlights frames whose name matches; "Matched" is the share of the (zoomed) width they cover,
	// counting nested matches once.
	function search(t) {
		var re;
		try {
			re = new RegExp(t, ignoreCase ? "i" : "");
		} catch (err) {
			if (matchedTxt) { matchedTxt.textContent = "Bad regexp: " + err.message; matchedTxt.classList.remove("hide"); }
			return;
		}
		term = t;
		var hits = [];
		for (var i = 0; i < groups.length; i++) {
			var r = rects[i];
			var visible = zoomed < 0 || !(groups[i].classList.contains("hide") || groups[i].classList.contains("parent"));
			if (visible && re.test(names[i])) {
				r.setAttribute("fill", cfg.searchcolor || "rgb(230,0,230)");
				hits.push(i);
			} else {
				r.setAttribute("fill", fills[i]);
			}
		}
		hits.sort(function (a, b) { return x0[a] - x0[b] || w0[b] - w0[a]; });
		var covered = 0, end = -1;
		for (var k = 0; k < hits.length; k++) {
			var a = x0[hits[k]], w = w0[hits[k]];
			if (a >= end) { covered += w; end = a + w; }
			else if (a + w > end) { covered += a + w - end; end = a + w; }
		}
		var base = zoomed >= 0 ? zoomW : total;
		var pct = base > 0 ? 100 * covered / base : 0;
		matched = pct;
		if (searchBtn) { searchBtn.textContent = "Reset Search"; searchBtn.classList.add("show"); }
		if (matchedTxt) {
			matchedTxt.textContent = "Matched: " + (pct === 100 ? "100" : pct.toFixed(1)) + "%";
			matchedTxt.classList.remove("hide");
		}
		updateUrl();
	}

	function resetSearch() {
		term = null;
		matched = null;
		for (var i = 0; i < rects.length; i++) rects[i].setAttribute("fill", fills[i]);
		if (searchBtn) { searchBtn.textContent = "Search"; searchBtn.classList.remove("show"); }
		if (matchedTxt) matchedTxt.textContent = " ";
		updateUrl();
	}

	function updateUrl() {
		if (typeof window === "undefined" || !window.history || !window.history.replaceState || !window.URLSearchParams) return;
		try {
			var params = new URLSearchParams(window.location.search);
			params.delete("x"); params.delete("y"); params.delete("s");
			if (zoomed >= 0) { params.set("x", x0[zoomed]); params.set("y", ys[zoomed]); }
			if (term !== null) params.set("s", term);
			var q = params.toString();
			window.history.replaceState(null, "", window.location.pathname + (q ? "?" + q : "") + window.location.hash);
		} catch (err) { /* file:// in some browsers: no URL state */ }
	}

	function restoreFromUrl() {
		if (typeof window === "undefined" || !window.URLSearchParams) return;
		var params = new URLSearchParams(window.location.search);
		if (params.has("x") && params.has("y")) {
			var x = parseFloat(params.get("x")), y = parseFloat(params.get("y"));
			for (var i = 0; i < groups.length; i++) {
				if (x0[i] === x && ys[i] === y) { zoom(i); break; }
			}
		}
		if (params.get("s")) search(params.get("s"));
	}

	return {
		init: init, zoom: zoom, unzoom: unzoom, search: search, resetSearch: resetSearch,
		toggleIgnoreCase: toggleIgnoreCase,
		matched: function () { return matched; },
		zoomedFrame: function () { return zoomed < 0 ? null : groups[zoomed]; },
		frameCount: function () { return groups.length; }
	};
})();
function init(evt) { sf.init(evt); }
""";
}
