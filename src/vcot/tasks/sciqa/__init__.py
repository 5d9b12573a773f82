"""Science QA (See2Think's 2D level): circuits, food webs and motion graphs with exactly computed answers."""
