package org.stackfold.fleet.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.stackfold.io.UsageException;

class LabelsTest {
    @Test
    void serviceAndHostGetColumnsTheRestSortedPairs() {
        Labels l = Labels.parse(List.of("zone=eu-1", "service=api", "host=h1.example", "env=prod"));
        assertThat(l).isEqualTo(new Labels("api", "h1.example", "env=prod,zone=eu-1"));
        assertThat(Labels.parse(List.of("service=db"))).isEqualTo(new Labels("db", "", ""));
    }

    @Test
    void serviceIsRequired() {
        assertThatThrownBy(() -> Labels.parse(List.of("host=h1"))).isInstanceOf(UsageException.class)
                .hasMessageContaining("service label is required");
    }

    @Test
    void namesAndValuesThatCouldEscapeADirectoryOrASeriesNameAreRefused() {
        for (String bad : List.of("service=../etc", "service=a b", "service=a,b", "service={x}", "9x=1", "=v", "k", "k=",
                "service=a'b")) {
            assertThatThrownBy(() -> Labels.parse(List.of(bad))).as(bad).isInstanceOf(UsageException.class);
        }
        assertThatThrownBy(() -> Labels.parse(List.of("service=a", "service=b"))).hasMessageContaining("given twice");
    }
}
