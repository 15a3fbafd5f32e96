"""The Java serialiser: `__PgReport.report(site, value)` writes one JSON line to the report
descriptor and returns true (so it can stand where the test had a boolean), by reflection over
boxed numbers, strings, characters, arrays, lists, sets, maps and Optionals."""

SOURCE = r'''
final class __PgReport {
    private static java.io.OutputStream out;
    private static long budget;

    private static synchronized void put(String line) {
        try {
            if (out == null) out = new java.io.FileOutputStream("/dev/fd/FD");
            out.write(line.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            out.flush();
        } catch (java.io.IOException e) {
            Runtime.getRuntime().halt(125);
        }
    }

    static boolean report(int site, Object value) {
        StringBuilder o = new StringBuilder("{\"s\":").append(site).append(",\"v\":");
        budget = 0;
        enc(o, value, 0);
        put(o.append("}\n").toString());
        return true;
    }

    static void end(int n) { put("{\"end\":" + n + "}\n"); }

    private static void str(StringBuilder o, String s) {
        o.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') o.append('\\').append(c);
            else if (c < 0x20 || c > 0x7e) o.append(String.format("\\u%04x", (int) c));
            else o.append(c);
        }
        o.append('"');
    }

    private static void num(StringBuilder o, double d) {
        if (Double.isNaN(d)) o.append("{\"f\":\"nan\"}");
        else if (Double.isInfinite(d)) o.append(d > 0 ? "{\"f\":\"inf\"}" : "{\"f\":\"-inf\"}");
        else if (d == 0 && 1 / d < 0) o.append("{\"f\":\"-0\"}");
        else o.append("{\"f\":").append(Double.toString(d)).append('}');
    }

    private static void enc(StringBuilder o, Object v, int depth) {
        if (++budget > 5_000_000 || depth > 1000) { o.append("{\"x\":\"too large\"}"); return; }
        if (v == null) o.append("null");
        else if (v instanceof Boolean) o.append(v.toString());
        else if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte
                 || v instanceof java.math.BigInteger) o.append(v.toString());
        else if (v instanceof Float) num(o, ((Float) v).doubleValue());
        else if (v instanceof Double) num(o, (Double) v);
        else if (v instanceof Character) { o.append("{\"c\":"); str(o, v.toString()); o.append('}'); }
        else if (v instanceof String) str(o, (String) v);
        else if (v instanceof java.util.Optional) {
            java.util.Optional<?> opt = (java.util.Optional<?>) v;
            o.append("{\"opt\":[");
            if (opt.isPresent()) enc(o, opt.get(), depth + 1);
            o.append("]}");
        } else if (v instanceof java.util.Map) {
            o.append("{\"m\":[");
            boolean first = true;
            for (java.util.Map.Entry<?, ?> e : ((java.util.Map<?, ?>) v).entrySet()) {
                if (!first) o.append(',');
                first = false;
                o.append('['); enc(o, e.getKey(), depth + 1); o.append(','); enc(o, e.getValue(), depth + 1); o.append(']');
            }
            o.append("]}");
        } else if (v instanceof java.util.Set) {
            o.append("{\"set\":"); seq(o, (java.util.Collection<?>) v, depth); o.append('}');
        } else if (v instanceof java.util.Collection) seq(o, (java.util.Collection<?>) v, depth);
        else if (v.getClass().isArray()) {
            int n = java.lang.reflect.Array.getLength(v);
            o.append('[');
            for (int i = 0; i < n; i++) { if (i > 0) o.append(','); enc(o, java.lang.reflect.Array.get(v, i), depth + 1); }
            o.append(']');
        } else if (v.getClass().getName().startsWith("org.javatuples.")) {
            try {
                Object items = v.getClass().getMethod("toList").invoke(v);
                o.append("{\"t\":"); seq(o, (java.util.Collection<?>) items, depth); o.append('}');
            } catch (ReflectiveOperationException e) { o.append("{\"x\":\"tuple\"}"); }
        } else { o.append("{\"x\":"); str(o, v.getClass().getName()); o.append('}'); }
    }

    private static void seq(StringBuilder o, java.util.Collection<?> c, int depth) {
        o.append('[');
        boolean first = true;
        for (Object x : c) { if (!first) o.append(','); first = false; enc(o, x, depth + 1); }
        o.append(']');
    }
}
'''
