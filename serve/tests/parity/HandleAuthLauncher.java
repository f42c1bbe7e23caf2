// The reference proxy's web application (as ProxyLauncher runs it) with the reference's own
// authentication in front of it, for serve/tests/parity/handle-auth-live.sh: its
// StandardHandleAuthenticationFilter on every request, and HTTP sessions named by the
// `Authorization: Handle sessionId=` of a request and by nothing else (no cookies), as the
// reference's handle server sets up its HTTP interface (HandleAuthorizationEnabledSessionHandler,
// which needs Jetty 8 and is not in the jar: its few lines are restated here for Jetty 9.4).
// Every request counts as secure (the filter authenticates only then): the test runs on
// loopback, where hdl serve takes credentials too (SPEC W4).
//   java -Dnet.handle.configDir=CFG -cp <PROXY_CP>:DIR HandleAuthLauncher WEBAPP_DIR PORT
import java.util.Collections;
import java.util.EnumSet;

import javax.servlet.DispatcherType;
import javax.servlet.http.HttpServletRequest;

import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.session.SessionHandler;
import org.eclipse.jetty.servlet.FilterHolder;
import org.eclipse.jetty.webapp.WebAppContext;

import net.handle.server.servletcontainer.auth.HandleAuthorizationHeader;
import net.handle.server.servletcontainer.auth.StandardHandleAuthenticationFilter;

public class HandleAuthLauncher {
    static class HeaderSessions extends SessionHandler {
        @Override
        protected void checkRequestedSessionId(Request baseRequest, HttpServletRequest request) {
            String header = request.getHeader("Authorization");
            if (header != null) {
                HandleAuthorizationHeader parsed = HandleAuthorizationHeader.fromHeader(header);
                if (parsed != null && (parsed.getVersion() == null || "0".equals(parsed.getVersion())) && parsed.getSessionId() != null) {
                    baseRequest.setRequestedSessionId(parsed.getSessionId());
                    baseRequest.setRequestedSessionIdFromCookie(true);
                }
            }
            super.checkRequestedSessionId(baseRequest, request);
        }
    }

    public static void main(String[] a) throws Exception {
        String webapp = a[0];
        int port = Integer.parseInt(a[1]);
        Server server = new Server();
        HttpConfiguration http = new HttpConfiguration();
        http.addCustomizer((connector, config, request) -> request.setSecure(true));
        ServerConnector c = new ServerConnector(server, new HttpConnectionFactory(http));
        c.setHost("127.0.0.1");
        c.setPort(port);
        server.addConnector(c);
        WebAppContext ctx = new WebAppContext();
        ctx.setContextPath("/");
        ctx.setResourceBase(webapp);
        ctx.setDescriptor(webapp + "/WEB-INF/web.xml");
        ctx.setDefaultsDescriptor(null);
        ctx.setParentLoaderPriority(true);
        ctx.prependServerClass("-org.eclipse.jetty.servlets.");
        ctx.setThrowUnavailableOnStartupException(true);
        HeaderSessions sessions = new HeaderSessions();
        sessions.setSessionTrackingModes(Collections.emptySet());
        ctx.setSessionHandler(sessions);
        ctx.addFilter(new FilterHolder(new StandardHandleAuthenticationFilter()), "/*", EnumSet.of(DispatcherType.REQUEST));
        server.setHandler(ctx);
        server.setStopAtShutdown(true);
        server.start();
        System.err.println("HandleAuthLauncher: listening on http://127.0.0.1:" + port + "/");
        server.join();
    }
}
