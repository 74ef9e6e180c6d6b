from tracefix.cli.main import main

main()
