print("vaulttool")
