// Starts Amazon's DynamoDB Local listening on one address (127.0.0.1 for the local stack) instead
// of every interface. DynamoDB Local has no option for the address (its -help lists -port,
// -inMemory, -dbPath, -sharedDb, -cors, -disableTelemetry...), and its Jetty server is built with
// a port only, which binds 0.0.0.0. This launcher builds the server from the same arguments, sets
// the host on its connectors before it starts, and refuses to start if there is none to set.
//
// Run by infra/local/dynamodb.ts with Java's source-file mode (`java -cp DynamoDBLocal.jar:… this
// file -host 127.0.0.1 -port N …`), so nothing is compiled ahead of time.

import java.lang.reflect.Field;
import java.util.Arrays;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public class LoopbackDynamoDbLocal {
  public static void main(String[] args) throws Exception {
    if (args.length < 2 || !args[0].equals("-host")) {
      System.err.println("usage: LoopbackDynamoDbLocal -host ADDRESS [DynamoDB Local options]");
      System.exit(2);
    }
    String host = args[1];
    DynamoDBProxyServer proxy =
        ServerRunner.createServerFromCommandLineArgs(Arrays.copyOfRange(args, 2, args.length));
    if (proxy == null) return; // -help or -version: DynamoDB Local printed it.
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    int bound = 0;
    for (Connector connector : server.getConnectors()) {
      if (connector instanceof ServerConnector) {
        ((ServerConnector) connector).setHost(host);
        bound++;
      }
    }
    if (bound == 0) {
      System.err.println("DynamoDB Local has no connector to bind to " + host + "; not starting.");
      System.exit(1);
    }
    proxy.start();
  }
}
