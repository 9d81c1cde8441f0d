// Bot.java - a kierki starter bot in Java (Java 11 or later, standard library only).
//
// Build it:  javac -d sample_bots/java/classes sample_bots/java/Bot.java
// Run it:    java -cp sample_bots/java/classes Bot
// Play it:   kierki match 'java -cp sample_bots/java/classes Bot' ...
// Check it:  kierki check-bot -- java -cp sample_bots/java/classes Bot
//
// It plays every game legally and nothing more: it passes the first cards of its hand, names the first trump
// offered, plays the first legal card and lets the others take the moon points. Change the choose* methods.
//
// The protocol (PROTOCOL.md) in short: the referee writes one JSON object per line to our stdin. Messages with
// an "id" (hello, pass, trump, play, moon) are requests: answer each with one JSON line on stdout with the same
// "type" and "id". Everything else is an event needing no answer. Ignore message types and fields you do not
// know: the protocol grows by adding them. stdout is only for answers; log to stderr. Exit on "bye" or when
// stdin closes.
//
// Java has no JSON in its standard library, so a small reader is below (Json.parse); a real bot may use any
// library. The JVM starts with its default flags under the referee's default limits where the referee runs each
// bot in a control group (its memory limit is resident memory); without control groups the limit is address
// space, which a default JVM exceeds at start: then run it as java -Xmx256m -XX:CompressedClassSpaceSize=64m
// -XX:ReservedCodeCacheSize=64m -XX:+UseSerialGC -cp ... Bot, or ask the organiser for a larger --limit-memory.

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class Bot {
    static final String NAME = "starter-java";
    static final String VERSION = "1.0";
    static final int PROTOCOL = 2;

    // Our own stdout, flushed after every answer line: the referee reads each answer as soon as it is written.
    static final PrintStream OUT = new PrintStream(System.out, false, StandardCharsets.UTF_8);

    static void log(String text) {
        System.err.println(NAME + ": " + text);
    }

    // The decisions. Each request lists what is allowed ("hand", "choices", "legal"), so no rules are needed here.
    static List<Object> choosePass(Map<String, Object> msg) {
        List<Object> hand = list(msg.get("hand"));
        int count = ((Number) msg.get("count")).intValue();
        return hand.subList(0, count); // any `count` cards of the hand
    }

    static Object chooseTrump(Map<String, Object> msg) {
        return list(msg.get("choices")).get(0); // msg "cards" holds the cards seen so far
    }

    static Object choosePlay(Map<String, Object> msg) {
        return list(msg.get("legal")).get(0); // never empty; "trick", "tricks", "lottery" tell the rest
    }

    static Object chooseMoon(Map<String, Object> msg) {
        return "others"; // "options" holds the totals after each choice
    }

    // The answer's fields for one request, or null for events and for types this bot does not know.
    static Map<String, Object> answer(Map<String, Object> msg) {
        Map<String, Object> reply = new LinkedHashMap<>();
        Object type = msg.get("type");
        reply.put("type", type);
        reply.put("id", msg.get("id"));
        if ("hello".equals(type)) {
            reply.put("name", NAME);
            reply.put("version", VERSION);
            reply.put("protocol", PROTOCOL);
        } else if ("pass".equals(type)) {
            reply.put("cards", choosePass(msg));
        } else if ("trump".equals(type)) {
            reply.put("suit", chooseTrump(msg));
        } else if ("play".equals(type)) {
            reply.put("card", choosePlay(msg));
        } else if ("moon".equals(type)) {
            reply.put("choice", chooseMoon(msg));
        } else {
            if ("error".equals(type)) {
                log("the referee says: " + msg.get("code") + " " + msg.get("message"));
            }
            return null; // game_start, deal, played, trick, deal_end, game_end, ... and unknown types
        }
        return reply;
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) { // null: end of input, the referee closed our stdin
            if (line.isBlank()) {
                continue;
            }
            Map<String, Object> msg;
            try {
                Object parsed = Json.parse(line);
                if (!(parsed instanceof Map)) {
                    continue;
                }
                @SuppressWarnings("unchecked")
                Map<String, Object> object = (Map<String, Object>) parsed;
                msg = object;
            } catch (IllegalArgumentException error) {
                log("ignoring a line that is not JSON: " + error.getMessage());
                continue;
            }
            if ("bye".equals(msg.get("type"))) {
                log("bye: " + msg.get("reason"));
                break;
            }
            Map<String, Object> reply = answer(msg);
            if (reply != null) {
                OUT.print(Json.write(reply));
                OUT.print('\n');
                OUT.flush();
            }
        }
        OUT.flush();
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object value) {
        return (List<Object>) value;
    }

    /** Just enough JSON: objects, arrays, strings, numbers, true, false, null. */
    static final class Json {
        private final String text;
        private int at;

        private Json(String text) {
            this.text = text;
        }

        static Object parse(String text) {
            Json json = new Json(text);
            Object value = json.value();
            json.space();
            if (json.at != text.length()) {
                throw new IllegalArgumentException("text after the value at " + json.at);
            }
            return value;
        }

        private void space() {
            while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
                at++;
            }
        }

        private char next() {
            space();
            if (at >= text.length()) {
                throw new IllegalArgumentException("unexpected end");
            }
            return text.charAt(at);
        }

        private void expect(char c) {
            if (next() != c) {
                throw new IllegalArgumentException("expected '" + c + "' at " + at);
            }
            at++;
        }

        private Object value() {
            char c = next();
            if (c == '{') {
                Map<String, Object> object = new LinkedHashMap<>();
                at++;
                if (next() == '}') {
                    at++;
                    return object;
                }
                while (true) {
                    String key = string();
                    expect(':');
                    object.put(key, value());
                    if (next() == ',') {
                        at++;
                        continue;
                    }
                    expect('}');
                    return object;
                }
            }
            if (c == '[') {
                List<Object> array = new ArrayList<>();
                at++;
                if (next() == ']') {
                    at++;
                    return array;
                }
                while (true) {
                    array.add(value());
                    if (next() == ',') {
                        at++;
                        continue;
                    }
                    expect(']');
                    return array;
                }
            }
            if (c == '"') {
                return string();
            }
            for (String word : new String[] {"true", "false", "null"}) {
                if (text.startsWith(word, at)) {
                    at += word.length();
                    return word.equals("null") ? null : Boolean.valueOf(word);
                }
            }
            int start = at;
            while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
                at++;
            }
            if (start == at) {
                throw new IllegalArgumentException("unexpected '" + c + "' at " + at);
            }
            String number = text.substring(start, at);
            if (number.contains(".") || number.contains("e") || number.contains("E")) {
                return Double.valueOf(number);
            }
            return Long.valueOf(number);
        }

        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (true) {
                if (at >= text.length()) {
                    throw new IllegalArgumentException("unterminated string");
                }
                char c = text.charAt(at++);
                if (c == '"') {
                    return out.toString();
                }
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                char e = text.charAt(at++);
                switch (e) {
                    case 'n': out.append('\n'); break;
                    case 't': out.append('\t'); break;
                    case 'r': out.append('\r'); break;
                    case 'b': out.append('\b'); break;
                    case 'f': out.append('\f'); break;
                    case 'u': out.append((char) Integer.parseInt(text.substring(at, at + 4), 16)); at += 4; break;
                    default: out.append(e); // \" \\ \/
                }
            }
        }

        static String write(Object value) {
            if (value == null) {
                return "null";
            }
            if (value instanceof String) {
                StringBuilder out = new StringBuilder("\"");
                for (char c : ((String) value).toCharArray()) {
                    if (c == '"' || c == '\\') {
                        out.append('\\').append(c);
                    } else if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
                return out.append('"').toString();
            }
            if (value instanceof Map) {
                StringBuilder out = new StringBuilder("{");
                for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
                    if (out.length() > 1) {
                        out.append(',');
                    }
                    out.append(write(entry.getKey().toString())).append(':').append(write(entry.getValue()));
                }
                return out.append('}').toString();
            }
            if (value instanceof List) {
                StringBuilder out = new StringBuilder("[");
                for (Object item : (List<?>) value) {
                    if (out.length() > 1) {
                        out.append(',');
                    }
                    out.append(write(item));
                }
                return out.append(']').toString();
            }
            return value.toString(); // numbers and booleans
        }
    }
}
