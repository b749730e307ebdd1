module atk
go 1.21
