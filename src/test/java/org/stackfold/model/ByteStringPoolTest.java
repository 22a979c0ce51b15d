package org.stackfold.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ByteStringPoolTest {
    /**
     * Strings of 0-99 bytes over two letters, so that many share their first and last eight bytes and
     * differ in one byte anywhere: the same id exactly for the same bytes, wherever they lie.
     */
    @Test
    void theSameIdExactlyForTheSameBytes() {
        SplittableRandom r = new SplittableRandom(5);
        ByteStringPool pool = new ByteStringPool();
        Map<String, Integer> ids = new HashMap<>();
        for (int n = 0; n < 20_000; n++) {
            int len = r.nextInt(0, 100);
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < len; i++) {
                sb.append(r.nextInt(12) == 0 ? 'b' : 'a');
            }
            String s = sb.toString();
            int at = r.nextInt(0, 9);
            byte[] buf = new byte[at + len + r.nextInt(0, 9)];
            System.arraycopy(s.getBytes(StandardCharsets.US_ASCII), 0, buf, at, len);
            int id = pool.intern(buf, at, len);
            Integer before = ids.putIfAbsent(s, id);
            assertThat(id).as(s).isEqualTo(before == null ? ids.size() - 1 : before);
            assertThat(pool.find(buf, at, len)).isEqualTo(id);
            assertThat(pool.string(id)).isEqualTo(s);
        }
        assertThat(pool.size()).isEqualTo(ids.size());
    }
}
