package org.stackfold.unwind;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** CFA programs written by hand as .eh_frame bytes: each instruction's effect on the rows. */
class CfiParserTest {
    private static final long BASE = 0x2000;

    /** An .eh_frame with one CIE ("zR", pcrel|sdata4, code 1, data -8, RA 16) and FDEs. */
    private static final class EhFrame {
        final ByteArrayOutputStream b = new ByteArrayOutputStream();
        final long base;

        EhFrame(byte[] cieInstructions, String aug) {
            this(cieInstructions, aug, BASE);
        }

        EhFrame(byte[] cieInstructions, String aug, long base) {
            this.base = base;
            ByteArrayOutputStream c = new ByteArrayOutputStream();
            u32(c, 0); // CIE id
            c.write(1); // version
            c.writeBytes(aug.getBytes());
            c.write(0);
            c.write(1); // code alignment
            c.write(0x78); // data alignment -8
            c.write(16); // RA register
            c.write(1); // augmentation length
            c.write(0x1b); // pcrel | sdata4
            c.writeBytes(cieInstructions);
            entry(c.toByteArray());
        }

        EhFrame fde(long pcBegin, long pcRange, int... instructions) {
            int at = b.size();
            ByteArrayOutputStream f = new ByteArrayOutputStream();
            u32(f, at + 4); // CIE pointer: back to offset 0
            int fieldAt = at + 8;
            u32(f, (int) (pcBegin - (base + fieldAt)));
            u32(f, (int) pcRange);
            f.write(0); // augmentation length
            for (int x : instructions) {
                f.write(x);
            }
            entry(f.toByteArray());
            return this;
        }

        private void entry(byte[] body) {
            int pad = (8 - (body.length + 4) % 8) % 8;
            u32(b, body.length + pad);
            b.writeBytes(body);
            for (int i = 0; i < pad; i++) {
                b.write(0); // DW_CFA_nop
            }
        }

        List<String> rows() {
            u32(b, 0);
            List<String> out = new ArrayList<>();
            for (long r : CfiParser.rowsOf(b.toByteArray(), base, true, null)) {
                out.add(UnwindRow.toString(r));
            }
            return out;
        }

        private static void u32(ByteArrayOutputStream o, int v) {
            o.write(v);
            o.write(v >>> 8);
            o.write(v >>> 16);
            o.write(v >>> 24);
        }
    }

    /** def_cfa rsp+8, RA at c-8: what GCC's CIEs say. */
    private static final byte[] CIE = {0x0c, 0x07, 0x08, (byte) 0x90, 0x01};

    @Test
    void pushesAndFramePointer() {
        // push %rbp; mov %rsp,%rbp; ... leave; ret
        List<String> rows = new EhFrame(CIE, "zR").fde(0x1000, 0x20,
                0x41, 0x0e, 0x10, 0x86, 0x02, // advance 1; def_cfa_offset 16; offset rbp c-16
                0x43, 0x0d, 0x06, // advance 3; def_cfa_register rbp
                0x58, 0x0c, 0x07, 0x08 // advance 24; def_cfa rsp+8
        ).rows();
        assertThat(rows).containsExactly("1000 rsp+8", "1001 rsp+16 rbp=c-16", "1004 rbp+16 rbp=c-16", "101c rsp+8 rbp=c-16",
                "1020 no-info");
    }

    @Test
    void rememberAndRestoreState() {
        List<String> rows = new EhFrame(CIE, "zR").fde(0x1000, 0x30,
                0x41, 0x0e, 0x10, 0x86, 0x02, // push rbp
                0x41, 0x0e, 0x18, // push more
                0x0a, // remember_state
                0x41, 0x0e, 0x10, 0x41, 0x0e, 0x08, (byte) 0xc6, // pops and ret on an early path; restore rbp
                0x41, 0x0b // restore_state for the code after the early return
        ).rows();
        assertThat(rows).containsExactly("1000 rsp+8", "1001 rsp+16 rbp=c-16", "1002 rsp+24 rbp=c-16", "1003 rsp+16 rbp=c-16",
                "1004 rsp+8", "1005 rsp+24 rbp=c-16", "1030 no-info");
    }

    @Test
    void classifiesStopPltAndUnsupported() {
        byte[] plt = {0x0f, 0x0b, 0x77, 0x08, (byte) 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22};
        byte[] otherExpression = {0x0f, 0x03, 0x77, 0x08, 0x06};
        List<String> rows = new EhFrame(CIE, "zR")
                .fde(0x1000, 0x10, 0x07, 0x10) // undefined RA: _start
                .fde(0x1010, 0x10, concat(new int[] {0x46}, plt)) // PLT from +6
                .fde(0x1020, 0x10, 0x0e, 0x0c) // CFA offset 12: not eighths
                .fde(0x1030, 0x10, concat(new int[] {}, otherExpression)) // breg7 8; deref
                .fde(0x1040, 0x10, 0x0c, 0x0a, 0x10) // CFA in r10
                .fde(0x1050, 0x10, 0x90, 0x02) // RA not at CFA-8
                .fde(0x1060, 0x10, 0x09, 0x06, 0x0c) // rbp in r12
                .fde(0x1080, 0x10, 0x41, 0x0e, 0x10, 0x86, 0x01) // rbp saved at c-8 (fine)
                .rows();
        // equal neighbours merge: one unsupported row covers 0x1020 to the gap at 0x1070
        assertThat(rows).containsExactly("1000 stop", "1010 rsp+8", "1016 plt", "1020 unsupported", "1070 no-info",
                "1080 rsp+8", "1081 rsp+16 rbp=c-8", "1090 no-info");
    }

    @Test
    void addressesAbove2GiBSortAfterTheOthers() {
        List<String> rows = new EhFrame(CIE, "zR", 0x8800_0000L).fde(0x9000_0000L, 0x10, 0x41, 0x0e, 0x10).fde(0x7fff_f000L, 0x10).rows();
        assertThat(rows).containsExactly("7ffff000 rsp+8", "7ffff010 no-info", "90000000 rsp+8", "90000001 rsp+16", "90000010 no-info");
    }

    @Test
    void signalFrameFromTheAugmentationStartsOneByteEarly() {
        List<String> rows = new EhFrame(CIE, "zRS").fde(0x1001, 0x10, 0x0f, 0x02, 0x77, 0x00).rows();
        assertThat(rows).containsExactly("1000 signal", "1011 no-info");
    }

    @Test
    void aCutProgramIsUnsupportedAndALyingLengthEndsTheSection() {
        List<String> rows = new EhFrame(CIE, "zR").fde(0x1000, 0x10, 0x41, 0x0f, 0x7f).rows();
        assertThat(rows).containsExactly("1000 unsupported", "1010 no-info");
        byte[] lying = {(byte) 0xf0, (byte) 0xff, (byte) 0xff, 0x7f, 0, 0, 0, 0};
        assertThat(CfiParser.rowsOf(lying, BASE, true, null)).isEmpty();
    }

    @Test
    void damagedSectionsNeverThrow() throws Exception {
        java.nio.file.Path libc = java.nio.file.Path.of("/lib/x86_64-linux-gnu/libc.so.6");
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isRegularFile(libc), "no glibc here");
        org.stackfold.symbolize.ElfSections elf = org.stackfold.symbolize.ElfSections.open(libc);
        byte[] eh = elf.section(".eh_frame");
        long base = elf.sectionAddress(".eh_frame");
        java.util.SplittableRandom random = new java.util.SplittableRandom(26);
        for (int round = 0; round < 60; round++) {
            byte[] b = eh.clone();
            for (int k = 0; k < 1 + round % 50; k++) {
                b[random.nextInt(b.length)] = (byte) random.nextInt(256);
            }
            if (round % 10 == 0) {
                b = java.util.Arrays.copyOf(b, random.nextInt(b.length));
            }
            long[] rows = CfiParser.rowsOf(b, base, true, elf);
            for (int i = 1; i < rows.length; i++) {
                assertThat(UnwindRow.pc(rows[i])).isGreaterThan(UnwindRow.pc(rows[i - 1]));
            }
        }
    }

    private static int[] concat(int[] a, byte[] b) {
        int[] r = new int[a.length + b.length];
        System.arraycopy(a, 0, r, 0, a.length);
        for (int i = 0; i < b.length; i++) {
            r[a.length + i] = b[i] & 0xff;
        }
        return r;
    }
}
