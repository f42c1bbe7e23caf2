// The reference's own classes asked what they make of the Handle authorisation scheme
// (SPEC W3), for serve/tests/handle_oracle.rs: one request a line on standard input, one
// JSON answer a line on standard output. Fields are tab-separated; bytes are hex.
//
//   header HEADER_BASE64     HandleAuthorizationHeader.fromHeader: the fields, or null
//   alg ALG                  constructSignedResponse("HS_PUBKEY", ALG, …): the digest name, or null
//   verify KEY ALG DATA SIG  the server's check: the HS_PUBKEY bytes' key, ALG's signature id
//   sign RSA|DSA ALG DATA    a key of that kind (made once) signs: its HS_PUBKEY bytes, the signature
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.Signature;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

import net.handle.hdllib.Encoder;
import net.handle.hdllib.Util;
import net.handle.server.servletcontainer.auth.HandleAuthorizationHeader;
import net.handle.server.servletcontainer.auth.StandardHandleAuthenticator;

public class HandleAuthOracle {
    static final Map<String, KeyPair> KEYS = new HashMap<>();

    static String str(String s) {
        if (s == null) return "null";
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) s.append(String.format("%02x", x));
        return s.toString();
    }

    static byte[] unhex(String s) {
        byte[] out = new byte[s.length() / 2];
        for (int i = 0; i < out.length; i++) out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        return out;
    }

    static String answer(String[] f) throws Exception {
        switch (f[0]) {
        case "header": {
            String h = new String(Base64.getDecoder().decode(f.length > 1 ? f[1] : ""), StandardCharsets.UTF_8);
            HandleAuthorizationHeader p = HandleAuthorizationHeader.fromHeader(h);
            if (p == null) return "null";
            return "{\"version\":" + str(p.getVersion()) + ",\"sessionId\":" + str(p.getSessionId()) + ",\"id\":" + str(p.getId())
                + ",\"cnonce\":" + str(p.getCnonce()) + ",\"type\":" + str(p.getType()) + ",\"alg\":" + str(p.getAlg())
                + ",\"signature\":" + str(p.getSignature()) + ",\"authenticating\":" + p.isAuthenticating() + "}";
        }
        case "alg": {
            byte[] r = StandardHandleAuthenticator.constructSignedResponse("HS_PUBKEY", f[1], new byte[] { 1 });
            if (r == null) return "null";
            return str(new String(Encoder.readByteArray(r, 0), StandardCharsets.UTF_8));
        }
        case "verify": {
            try {
                PublicKey key = Util.getPublicKeyFromBytes(unhex(f[1]), 0);
                Signature sig = Signature.getInstance(Util.getSigIdFromHashAlgId(f[2].getBytes(StandardCharsets.UTF_8), key.getAlgorithm()));
                sig.initVerify(key);
                sig.update(unhex(f[3]));
                return sig.verify(unhex(f[4])) ? "true" : "false";
            } catch (Exception e) {
                return str("error: " + e);
            }
        }
        case "sign": {
            KeyPair pair = KEYS.get(f[1]);
            if (pair == null) {
                KeyPairGenerator g = KeyPairGenerator.getInstance(f[1]);
                g.initialize(f[1].equals("DSA") ? 1024 : 2048);
                pair = g.generateKeyPair();
                KEYS.put(f[1], pair);
            }
            Signature sig = Signature.getInstance(Util.getSigIdFromHashAlgId(f[2].getBytes(StandardCharsets.UTF_8), f[1]));
            sig.initSign(pair.getPrivate());
            sig.update(unhex(f[3]));
            return "{\"key\":\"" + hex(Util.getBytesFromPublicKey(pair.getPublic())) + "\",\"signature\":\"" + hex(sig.sign()) + "\"}";
        }
        default:
            return str("unknown request " + f[0]);
        }
    }

    public static void main(String[] args) throws Exception {
        java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            System.out.println(answer(line.split("\t", -1)));
            System.out.flush();
        }
    }
}
