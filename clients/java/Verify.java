import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Verifies a Customer API webhook (contract 6.4) with the JDK only (17+), and checks the published vectors:
 * {@code java Verify.java [path/to/webhook-signature-vectors.json]}. Copy {@code verify} into a receiver and give it
 * the raw body bytes exactly as received, before any parsing.
 */
public class Verify {
    private static final Pattern SIGNATURE = Pattern.compile("sha256=[0-9a-f]{64}");
    private static final Pattern TIMESTAMP = Pattern.compile("[0-9]{1,12}");

    /** Null when the delivery is authentic and fresh, else why not (the kit's reasons). */
    public static String verify(String secret, String timestamp, String signature, byte[] rawBody, long nowSeconds, long toleranceSeconds)
            throws Exception {
        if (signature == null) return "missing_signature";
        if (!SIGNATURE.matcher(signature).matches()) return "malformed_signature"; // the format fixes the length
        if (timestamp == null) return "missing_timestamp";
        if (!TIMESTAMP.matcher(timestamp).matches()) return "malformed_timestamp";
        if (Math.abs(nowSeconds - Long.parseLong(timestamp)) > toleranceSeconds) return "timestamp_outside_tolerance";
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        mac.update((timestamp + ".").getBytes(StandardCharsets.US_ASCII));
        byte[] expected = ("sha256=" + HexFormat.of().formatHex(mac.doFinal(rawBody))).getBytes(StandardCharsets.US_ASCII);
        // MessageDigest.isEqual compares in constant time.
        return MessageDigest.isEqual(expected, signature.getBytes(StandardCharsets.US_ASCII)) ? null : "signature_mismatch";
    }

    public static void main(String[] args) throws Exception {
        Path path = Path.of(args.length > 0 ? args[0] : "spec/webhook-signature-vectors.json");
        int failures = 0;
        for (Object item : (List<?>) new Json(Files.readString(path, StandardCharsets.UTF_8)).value()) {
            Map<?, ?> c = (Map<?, ?>) item;
            byte[] body = Base64.getDecoder().decode((String) c.get("bodyBase64"));
            String timestamp = (String) c.get("timestamp");
            // Freshness is not part of a case: the current time is the case's timestamp.
            String got = verify((String) c.get("secret"), timestamp, (String) c.get("header"), body, Long.parseLong(timestamp), 300);
            String want = Boolean.TRUE.equals(c.get("valid")) ? null : (String) c.get("reason");
            boolean ok = java.util.Objects.equals(got, want) && new String(body, StandardCharsets.UTF_8).equals(c.get("body"));
            if (!ok) failures++;
            System.out.println((ok ? "ok " : "FAIL ") + c.get("name") + (ok ? "" : ": got " + got + ", want " + want));
        }
        System.exit(failures == 0 ? 0 : 1);
    }

    /** Just enough JSON for the vectors file (the JDK has no parser): objects, arrays, strings, booleans, null. */
    private static final class Json {
        private final String text;
        private int at;

        Json(String text) {
            this.text = text;
        }

        Object value() {
            skipSpace();
            char c = text.charAt(at);
            if (c == '{') {
                Map<String, Object> object = new LinkedHashMap<>();
                at++;
                while (next() != '}') {
                    String key = string();
                    expect(':');
                    object.put(key, value());
                    if (next() == ',') at++;
                }
                at++;
                return object;
            }
            if (c == '[') {
                List<Object> array = new ArrayList<>();
                at++;
                while (next() != ']') {
                    array.add(value());
                    if (next() == ',') at++;
                }
                at++;
                return array;
            }
            if (c == '"') return string();
            for (String word : new String[] {"true", "false", "null"}) {
                if (text.startsWith(word, at)) {
                    at += word.length();
                    return word.equals("null") ? null : Boolean.valueOf(word);
                }
            }
            throw new IllegalArgumentException("unexpected " + c + " at " + at);
        }

        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            for (char c; (c = text.charAt(at++)) != '"'; ) {
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                char e = text.charAt(at++);
                switch (e) {
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    case 't' -> out.append('\t');
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'u' -> {
                        out.append((char) Integer.parseInt(text.substring(at, at + 4), 16)); // surrogate pairs join in the builder
                        at += 4;
                    }
                    default -> out.append(e); // \" \\ \/
                }
            }
            return out.toString();
        }

        private char next() {
            skipSpace();
            return text.charAt(at);
        }

        private void expect(char c) {
            if (next() != c) throw new IllegalArgumentException("expected " + c + " at " + at);
            at++;
        }

        private void skipSpace() {
            while (Character.isWhitespace(text.charAt(at))) at++;
        }
    }
}
