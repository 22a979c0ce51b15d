package org.stackfold.symbolize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Demangling against known pairs (C++ through libstdc++, Rust legacy and v0 by our code) and the options. */
class NamesTest {
    private static final Names NAMES = Names.INSTANCE;

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "_ZN9JavaCalls11call_helperEP9JavaValueRK12methodHandleP17JavaCallArgumentsP10JavaThread|JavaCalls::call_helper(JavaValue*, methodHandle const&, JavaCallArguments*, JavaThread*)",
        "_ZNSt6vectorIiSaIiEE9push_backERKi|std::vector<int, std::allocator<int> >::push_back(int const&)",
        "_Z3fooi.constprop.0|foo(int) [clone .constprop.0]",
        "_ZN12_GLOBAL__N_11gEv|(anonymous namespace)::g()",
        "main|main",
        "_Zbogus|_Zbogus",
    })
    void cxxThroughLibstdcxx(String mangled, String demangled) {
        assumeThat(Names.cxxAvailable()).as("libstdc++.so.6 (apt-get install libstdc++6)").isTrue();
        assertThat(NAMES.demangle(mangled)).isEqualTo(demangled);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "_ZN3std2rt10lang_start17h0123456789abcdefE|std::rt::lang_start",
        "_ZN4core3ptr85drop_in_place$LT$std..rt..lang_start$LT$$LP$$RP$$GT$..$u7b$$u7b$closure$u7d$$u7d$$GT$17h3f0c1c2d3e4f5a6bE|core::ptr::drop_in_place<std::rt::lang_start<()>::{{closure}}>",
        "_ZN66_$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$core..ops..drop..Drop$GT$4drop17h0000000000000000E|<alloc::vec::Vec<T> as core::ops::drop::Drop>::drop",
    })
    void rustLegacy(String mangled, String demangled) {
        assertThat(NAMES.demangle(mangled)).isEqualTo(demangled);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "_RNvC6_123foo3bar|123foo::bar",
        "_RNCNCNgCs6DXkGYLi8lr_2cc5spawn00B5_|cc::spawn::{closure#0}::{closure#0}",
        "_RINbNbCskIICzLVDPPb_5alloc5alloc8box_freeDINbNiB4_5boxed5FnBoxuEp6OutputuEL_ECs1iopQbuBiw2_3std|alloc::alloc::box_free::<dyn alloc::boxed::FnBox<(), Output = ()>>",
        "_RNCINkXs25_NgCsbmNqQUJIY6D_4core5sliceINyB9_4IterhENuNgNoBb_4iter8iterator8Iterator9rpositionNCNgNpB9_6memchr7memrchrs_0E0Bb_|<core::slice::Iter<u8> as core::iter::iterator::Iterator>::rposition::<core::slice::memchr::memrchr::{closure#1}>::{closure#0}",
        "_RINvNtC3std3mem8align_ofjE|std::mem::align_of::<usize>",
        "_RNvMNtC7mycrate3fooINtB2_3BarlE3baz|<mycrate::foo::Bar<i32>>::baz",
        "_RINvC7mycrate3fooKj2a_Kb0_Kanb_E|mycrate::foo::<42, false, -11>",
        "_RINvC7mycrate3fooTlhEQSbE|mycrate::foo::<(i32, u8), &mut [bool]>",
        "_RNvC7mycrate3foo.llvm.1234|mycrate::foo",
    })
    void rustV0(String mangled, String demangled) {
        assertThat(NAMES.demangle(mangled)).isEqualTo(demangled);
    }

    @Test
    void malformedRustNamesStayRaw() {
        assertThat(NAMES.demangle("_RNvC")).isEqualTo("_RNvC");
        assertThat(NAMES.demangle("_RB0_")).isEqualTo("_RB0_");
        assertThat(NAMES.demangle("_ZN3foo3barE")).isIn("foo::bar", "_ZN3foo3barE");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "JavaCalls::call_helper(JavaValue*, methodHandle const&)|JavaCalls::call_helper",
        "foo(int) [clone .constprop.0]|foo",
        "ns::f(int) const|ns::f",
        "(anonymous namespace)::g(int)|(anonymous namespace)::g",
        "Foo::operator()(int)|Foo::operator()",
        "plain_c_name|plain_c_name",
    })
    void stripParameters(String name, String stripped) {
        assertThat(Names.stripParameters(name)).isEqualTo(stripped);
    }

    @Test
    void optionsChooseRawDemangledOrStripped() {
        String mangled = "_ZNSt6vectorIiSaIiEE9push_backERKi";
        assumeThat(Names.cxxAvailable()).as("libstdc++.so.6").isTrue();
        assertThat(NAMES.display(mangled, new SymbolizerOptions(false, true, true, false))).isEqualTo(mangled);
        assertThat(NAMES.display(mangled, new SymbolizerOptions(true, true, true, true)))
                .isEqualTo("std::vector<int, std::allocator<int> >::push_back");
    }
}
