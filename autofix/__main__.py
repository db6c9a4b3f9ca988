from autofix.cli.main import main

main()
