package org.stackfold.render.flamegraph;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Colour rules, checked against values printed by perl itself and against the palettes' definitions. */
class FrameColorsTest {
    /** {@code perl -e 'use utf8; srand(unpack("%32W*", $n)); printf "%.17g", rand(1)'} (perl 5.36). */
    @ParameterizedTest
    @CsvSource({"main,0.77859998431904742", "java,0.16619305832228193", "do_sys_open,0.94236611349424848",
            "é,0.067765955188409777"})
    void perlDefaultIsDrand48SeededByTheCharacterSum(String name, double expected) {
        assertThat(FrameColors.perlSeededRand(name)).isEqualTo(expected);
    }

    @Test
    void hashIgnoresModulePrefixAndLooksAtThreeCharacters() {
        assertThat(FrameColors.namehashPerl("genunix`bcopy")).isEqualTo(FrameColors.namehashPerl("bcopy"));
        assertThat(FrameColors.namehashPerl("abcdef")).isEqualTo(FrameColors.namehashPerl("abcxyz"));
        assertThat(FrameColors.namehashInferno("abcdef".getBytes(), false))
                .isEqualTo(FrameColors.namehashInferno("abcxyz".getBytes(), false));
    }

    @Test
    void differentialScales() {
        assertThat(FrameColors.diffScale(10, 10, false)).isEqualTo(Palette.pack(255, 0, 0));
        assertThat(FrameColors.diffScale(-5, 10, false)).isEqualTo(Palette.pack(105, 105, 255));
        assertThat(FrameColors.diffScale(0, 10, false)).isEqualTo(Palette.pack(255, 255, 255));
        assertThat(FrameColors.diffScale(10, 10, true)).isEqualTo(Palette.pack(255, 100, 100));
        assertThat(FrameColors.diffScale(0, 10, true)).isEqualTo(Palette.pack(250, 250, 250));
    }

    @ParameterizedTest
    @CsvSource({
            "java,Lcom/foo/Bar:::baz,false,GREEN", "java,foo_[j],false,GREEN", "java,foo_[i],false,AQUA",
            "java,Foo::bar,false,YELLOW", "java,schedule_[k],false,ORANGE", "java,memcpy,false,RED",
            "java,one.nio.Server.run,true,GREEN", "java,-[NSObject foo],true,YELLOW",
            "perl,Foo::bar,false,YELLOW", "perl,script.pl,false,GREEN", "perl,Foo::bar_[k],true,ORANGE",
            "js,/app/x.js:12,false,GREEN", "js,/app/node_modules/x.js,true,PURPLE", "js,foo_[j],false,AQUA",
            "python,/usr/lib/python3.11/json/x.py,false,YELLOW", "python,/venv/site-packages/x.py,false,AQUA",
            "rust,core::ptr::drop,false,ORANGE", "rust,mycrate::f,false,AQUA", "rust,malloc,false,YELLOW",
            "wakeup,x,false,AQUA", "chain,x,false,BLUE", "chain,x_[w],false,AQUA", "mem,x,false,MEM"})
    void semanticPalettesPickABasicOne(String palette, String name, boolean inferno, String expected) {
        assertThat(Palette.parse(palette).resolve(name, inferno, false)).isEqualTo(Palette.valueOf(expected));
    }

    @Test
    void basicPaletteFormulas() {
        assertThat(Palette.HOT.rgb(0, 0, 0)).isEqualTo(Palette.pack(205, 0, 0));
        assertThat(Palette.HOT.rgb(0.999, 0.999, 0.999)).isEqualTo(Palette.pack(254, 229, 54));
        assertThat(Palette.ORANGE.rgbF32(0.5f, 0, 0)).isEqualTo(Palette.pack(222, 122, 0));
    }
}
