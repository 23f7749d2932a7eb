package app

import "context"

// A fresh desk has no supervisor, and a pickup desk (the window in desk
// mode) needs one to unlock it. Adding one took a command prompt
// ('qrdesk operators add NAME --supervisor'), which a clerk who starts the
// pickup desk from the Start menu does not have. So the window lets anyone
// at the desk add the first supervisor, as the command line lets anyone
// at the machine: only while the desk has never had one. Once it has, a
// supervisor adds the others (or, when every supervisor was removed, the
// command line or the server's staff list does: a picker at the counter
// must not make themselves one).

// Supervisors says whether the desk has a current supervisor, and whether
// it has ever had one (removed ones count).
type Supervisors struct {
	Current, Ever bool
}

// Supervisors reads whether the desk has (or ever had) a supervisor.
func (st *Operators) Supervisors(ctx context.Context) (Supervisors, error) {
	ops, err := st.Store.Operators(ctx, true)
	var s Supervisors
	for _, op := range ops {
		if op.Supervisor {
			s.Ever = true
			s.Current = s.Current || op.RemovedAt == 0
		}
	}
	return s, err
}

// AddFirstSupervisor adds name with pin as the desk's first supervisor; by
// is audited. It is refused (KindConflict) once the desk has or had a
// supervisor: then a supervisor adds operators.
func (st *Operators) AddFirstSupervisor(ctx context.Context, name, pin, by string) (Operator, error) {
	s, err := st.Supervisors(ctx)
	if err != nil {
		return Operator{}, err
	}
	if s.Ever {
		return Operator{}, Errorf(KindConflict, "this desk has had a supervisor already: a supervisor adds operators (Staff, or 'qrdesk operators add')")
	}
	return st.Add(ctx, name, pin, true, by)
}
