package org.stackfold.symbolize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.stackfold.io.InputException;

class ProcessMapsTest {
    @Test
    void keepsExecutableMappingsWithOffsetsDevicesAndDeletedFiles() throws IOException {
        byte[] text;
        try (InputStream in = getClass().getResourceAsStream("/symbolize/maps.txt")) {
            text = in.readAllBytes();
        }
        List<ProcessMaps.Mapping> maps = ProcessMaps.parseExecutable(text, "maps.txt");
        assertThat(maps).extracting(ProcessMaps.Mapping::path).containsExactly("/usr/bin/busy", "",
                "/usr/lib/x86_64-linux-gnu/libc.so.6", "/tmp/gone", "[vdso]", "[vsyscall]");
        ProcessMaps.Mapping libc = maps.get(2);
        assertThat(libc.start()).isEqualTo(0x7f1e3c426000L);
        assertThat(libc.end()).isEqualTo(0x7f1e3c57b000L);
        assertThat(libc.offset()).isEqualTo(0x26000);
        assertThat(libc.device()).isEqualTo(0xfeL << 32 | 1);
        assertThat(libc.inode()).isEqualTo(2201);
        assertThat(libc.mapFilesName()).isEqualTo("7f1e3c426000-7f1e3c57b000");
        assertThat(maps.get(1).anonymous()).isTrue();
        assertThat(maps.get(3).deleted()).isTrue();
        assertThat(maps.get(4).special()).isTrue();
        assertThat(maps.get(5).start()).isEqualTo(0xffffffffff600000L);
    }

    @Test
    void aBrokenLineNamesItsLineNumber() {
        byte[] text = "55d0c2a4e000-55d0c2a4f000 r-xp 00000000 fe:01 1317 /a\nnonsense\n".getBytes(StandardCharsets.US_ASCII);
        assertThatThrownBy(() -> ProcessMaps.parseExecutable(text, "m")).isInstanceOf(InputException.class)
                .hasMessageStartingWith("m:2: ");
    }
}
