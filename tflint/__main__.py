from tflint.cli import main

raise SystemExit(main())
