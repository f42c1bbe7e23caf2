// CertCheck: the reference client (HANDLE.NET's hdllib) asks the server a siteinfo.json
// describes for a certified answer, and checks its signature with the key in that site
// record, as it checks any server's. Part of net/reference/run.sh.
//
//   java CertCheck SITEINFO.json HANDLE tcp|udp
//
// Prints the response code and "verified" (the client throws when a signature is missing
// or wrong: then the exception, and exit status 1).
import java.nio.file.Files;
import java.nio.file.Paths;
import net.handle.apps.simple.SiteInfoConverter;
import net.handle.hdllib.AbstractResponse;
import net.handle.hdllib.HandleResolver;
import net.handle.hdllib.Interface;
import net.handle.hdllib.ResolutionRequest;
import net.handle.hdllib.SiteInfo;
import net.handle.hdllib.Util;

public class CertCheck {
    public static void main(String[] args) throws Exception {
        String json = new String(Files.readAllBytes(Paths.get(args[0])), "UTF-8");
        SiteInfo site = SiteInfoConverter.convertToSiteInfo(json);
        HandleResolver resolver = new HandleResolver();
        resolver.setCheckSignatures(true);
        ResolutionRequest request = new ResolutionRequest(Util.encodeString(args[1]), null, null, null);
        request.certify = true;
        int protocol = args[2].equals("udp") ? Interface.SP_HDL_UDP : Interface.SP_HDL_TCP;
        try {
            AbstractResponse response = resolver.sendRequestToSite(request, site, protocol);
            boolean signed = response.signature != null && response.signature.length > 0;
            System.out.println("code " + response.responseCode + (signed ? " verified" : " unsigned"));
            System.exit(signed ? 0 : 1);
        } catch (Exception e) {
            System.out.println("refused: " + e);
            System.exit(1);
        }
    }
}
