// LimitCheck: the reference client (HANDLE.NET's hdllib) resolves a handle from the server
// a siteinfo.json describes, over UDP only, TCP only, or as it chooses by itself (UDP, then
// TCP on any failure), N times; says how each ended and how long the slowest took. Part of
// net/reference/run.sh, for this project's UDP limits (SPEC N14).
//
//   java LimitCheck SITEINFO.json HANDLE udp|tcp|any N
//
// Prints "N answered, code C, V values, slowest T ms" or the first failure's message.
import java.nio.file.Files;
import java.nio.file.Paths;
import net.handle.apps.simple.SiteInfoConverter;
import net.handle.hdllib.AbstractResponse;
import net.handle.hdllib.HandleResolver;
import net.handle.hdllib.Interface;
import net.handle.hdllib.ResolutionRequest;
import net.handle.hdllib.ResolutionResponse;
import net.handle.hdllib.SiteInfo;
import net.handle.hdllib.Util;

public class LimitCheck {
    public static void main(String[] args) throws Exception {
        String json = new String(Files.readAllBytes(Paths.get(args[0])), "UTF-8");
        SiteInfo site = SiteInfoConverter.convertToSiteInfo(json);
        HandleResolver resolver = new HandleResolver();
        int times = Integer.parseInt(args[3]);
        long slowest = 0;
        int code = 0, values = 0;
        for (int i = 0; i < times; i++) {
            ResolutionRequest request = new ResolutionRequest(Util.encodeString(args[1]), null, null, null);
            request.authoritative = true;
            long start = System.nanoTime();
            try {
                AbstractResponse response;
                switch (args[2]) {
                case "udp": response = resolver.sendRequestToSite(request, site, Interface.SP_HDL_UDP); break;
                case "tcp": response = resolver.sendRequestToSite(request, site, Interface.SP_HDL_TCP); break;
                default: response = resolver.sendRequestToSite(request, site); break;
                }
                code = response.responseCode;
                values = response instanceof ResolutionResponse ? ((ResolutionResponse) response).getHandleValues().length : 0;
            } catch (Exception e) {
                System.out.println("failed: " + e.getMessage());
                System.exit(0);
            }
            slowest = Math.max(slowest, (System.nanoTime() - start) / 1_000_000);
        }
        System.out.println(times + " answered, code " + code + ", " + values + " values, slowest " + (slowest < 500 ? "under 500" : "over 500") + " ms");
    }
}
